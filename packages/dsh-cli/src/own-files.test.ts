import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workspaceTools } from "dsh-workspace-tools";
import { beforeEach, describe, expect, it } from "vitest";
import { ownFiles } from "./own-files.js";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-own-files-"));
  return () => rm(dir, { recursive: true, force: true });
});

const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };

describe("dsh's own files", () => {
  it("are what a run names: its log, its SQLite store and what SQLite keeps beside it, its witness", async () => {
    await mkdir(join(dir, "logs"));
    for (const name of ["s.jsonl", "sessions.db", "sessions.db-wal", "sessions.db-shm", "witness.jsonl", "a.txt"]) await writeFile(join(dir, name), `${name} content`);
    await writeFile(join(dir, "logs", "other.jsonl"), "x");
    const io = { cwd: dir, env: {} } as Parameters<typeof ownFiles>[1];
    const hidden = ownFiles({ log: "s.jsonl", store: "sqlite:sessions.db", witness: "witness.jsonl", "signing-key": ".dsh/keys/writer.pem" }, io);
    const [listDir, readFileTool] = workspaceTools(dir, { hidden });
    const text = async (tool: typeof listDir, path: string) => JSON.stringify((await tool!.invoke(JSON.stringify({ path }), context)).content);
    expect(await text(listDir, ".")).toBe(JSON.stringify([{ type: "text", text: "a.txt\nlogs/" }]));
    for (const path of ["s.jsonl", "sessions.db", "./sessions.db-wal", "logs/../sessions.db-shm", "witness.jsonl"]) expect(await text(readFileTool, path)).toContain(`${path} does not exist`);
    expect(await text(readFileTool, "logs/other.jsonl")).toContain('"x"');
    // A store URL elsewhere (or a STORE#ID log) names no file here.
    expect(ownFiles({ log: "sqlite:sessions.db#abc", store: "postgres://u:p@h/db" }, io)).toEqual([]);
    expect(ownFiles({}, { ...io, env: { DSH_STORE: "sqlite:/var/dsh.db" } })).toEqual(["/var/dsh.db", "/var/dsh.db-journal", "/var/dsh.db-wal", "/var/dsh.db-shm"]);
  });
});

describe("the documented layout", () => {
  it("keeps a run's own signing key from its agent: the key never reaches the log nor the provider", async () => {
    const cwd = join(dir, "project");
    await mkdir(cwd);
    const cli = (...argv: string[]) => runCli(argv, { cwd });
    expect((await cli("keygen", "writer.pem")).code).toBe(0);
    const scenario = join(dir, "steps.json");
    await writeFile(scenario, JSON.stringify({ responses: [{ toolCalls: [{ name: "read_file", arguments: { path: "writer.pem" } }, { name: "read_file", arguments: { path: "witness.jsonl" } }] }, { text: "Done." }] }));
    const run = await cli("run", "--log", "s.jsonl", "--signing-key", "writer.pem", "--witness", "witness.jsonl", "--scenario", scenario, "--record-wire", join(dir, "wire.jsonl"), "Read the key.");
    expect(run.code, run.stderr).toBe(0);
    const key = (await readFile(join(cwd, "writer.pem"), "utf8")).split("\n")[1]!;
    expect(await readFile(join(cwd, "s.jsonl"), "utf8")).not.toContain(key);
    expect(await readFile(join(dir, "wire.jsonl"), "utf8")).not.toContain(key);
    // The key this run signs with is one of its own files: out of view, as if it were not there.
    expect(await readFile(join(cwd, "s.jsonl"), "utf8")).toContain("writer.pem does not exist");
  });
});

describe("dsh keygen", () => {
  it("puts a key where the tools never look unless told, and writes nothing when either file is taken", async () => {
    const cwd = join(dir, "keys");
    await mkdir(cwd);
    const cli = (...argv: string[]) => runCli(argv, { cwd });
    expect(await cli("keygen")).toMatchObject({ code: 0, stderr: expect.stringContaining(`${join(cwd, ".dsh", "keys", "writer.pem")} (keep it secret)`) });
    expect(await readFile(join(cwd, ".dsh", "keys", "writer.pem.pub"), "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    await writeFile(join(cwd, "taken.pem"), "mine");
    expect(await cli("keygen", "taken.pem")).toMatchObject({ code: 2, stderr: `dsh: ${join(cwd, "taken.pem")} already exists: dsh keygen never writes over a file\n` });
    await expect(readFile(join(cwd, "taken.pem.pub"))).rejects.toMatchObject({ code: "ENOENT" });
    await writeFile(join(cwd, "half.pem.pub"), "mine");
    expect((await cli("keygen", "half.pem")).code).toBe(2);
    await expect(readFile(join(cwd, "half.pem"))).rejects.toMatchObject({ code: "ENOENT" });
    await symlink(join(dir, "nowhere"), join(cwd, "dangling.pem"));
    expect((await cli("keygen", "dangling.pem")).code).toBe(2);
    await expect(readFile(join(cwd, "dangling.pem.pub"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
