import { generateKeyPairSync } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { execFileSync, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { workspaceTools } from "./workspace-tools.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-workspace-"));
  return () => rm(dir, { recursive: true, force: true });
});

const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
const privatePem = () => generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();

describe("workspace tools and secrets", () => {
  it("never read a file holding a private key, nor one named as credentials are, whatever its name or path", async () => {
    await writeFile(join(dir, "writer.pem"), privatePem());
    await writeFile(join(dir, "notes.txt"), `my notes\n${privatePem()}`);
    await writeFile(join(dir, "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n");
    await writeFile(join(dir, "public.pem"), generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString());
    for (const name of [".env", ".env.local", ".netrc", ".pgpass", ".npmrc", ".git-credentials"]) await writeFile(join(dir, name), "TOKEN=s3cret\n");
    await writeFile(join(dir, "env.txt"), "nothing secret\n");
    await symlink(join(dir, "writer.pem"), join(dir, "alias.txt"));
    const [, readFileTool] = workspaceTools(dir);
    const read = async (path: string) => JSON.stringify((await readFileTool!.invoke(JSON.stringify({ path }), context)).content);
    for (const path of ["writer.pem", "alias.txt", "notes.txt", "id_rsa"]) {
      const said = await read(path);
      expect(said).toContain(`Error [TOOL_DENIED]: ${path} holds a private key: dsh keeps keys out of the model's reach`);
      expect(said).not.toContain("PRIVATE KEY");
    }
    for (const path of [".env", ".env.local", ".netrc", ".pgpass", ".npmrc", ".git-credentials"]) {
      expect(await read(path)).toBe(JSON.stringify([{ type: "text", text: `Error [TOOL_DENIED]: ${path} is a credentials file: dsh keeps it out of the model's reach` }]));
    }
    expect(await read("public.pem")).toContain("BEGIN PUBLIC KEY");
    expect(await read("env.txt")).toContain("nothing secret");
  });

  it("keep the files the caller names out of view: not listed, and not readable by any path", async () => {
    await mkdir(join(dir, "logs"));
    for (const name of ["s.jsonl", "sessions.db", "sessions.db-wal", "witness.jsonl", "a.txt"]) await writeFile(join(dir, name), `${name} content`);
    await writeFile(join(dir, "logs", "other.jsonl"), "x");
    const hidden = ["s.jsonl", "sessions.db", "sessions.db-wal", "witness.jsonl", "not-made-yet.txt"].map((name) => join(dir, name));
    const [listDir, readFileTool] = workspaceTools(dir, { hidden });
    const text = async (tool: typeof listDir, path: string) => JSON.stringify((await tool!.invoke(JSON.stringify({ path }), context)).content);
    expect(await text(listDir, ".")).toBe(JSON.stringify([{ type: "text", text: "a.txt\nlogs/" }]));
    for (const path of ["s.jsonl", "sessions.db", "./sessions.db-wal", "logs/../witness.jsonl"]) expect(await text(readFileTool, path)).toContain(`${path} does not exist`);
    expect(await text(readFileTool, "logs/other.jsonl")).toContain('"x"');
  });
});

describe("workspace tools", () => {
  it("read and list inside the working directory only, symlinks included", async () => {
    const root = join(dir, "root");
    await mkdir(join(root, "sub"), { recursive: true });
    await writeFile(join(root, "a.txt"), "alpha");
    await writeFile(join(dir, "secret.txt"), "outside");
    await symlink(join(dir, "secret.txt"), join(root, "link.txt"));
    const [listDir, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    const text = async (tool: typeof listDir, args: object) => JSON.stringify((await tool!.invoke(JSON.stringify(args), context)).content);
    expect(await text(listDir, { path: "." })).toContain("a.txt\\nlink.txt\\nsub/");
    expect(await text(readFileTool, { path: "a.txt" })).toContain("alpha");
    expect(await text(readFileTool, { path: "../secret.txt" })).toContain("outside the working directory");
    expect(await text(readFileTool, { path: "link.txt" })).toContain("outside the working directory");
    expect(await text(readFileTool, { path: "/etc/passwd" })).toContain("outside the working directory");
    expect(await text(readFileTool, { path: "missing.txt" })).toContain("does not exist");
    expect(await text(listDir, { path: "a.txt" })).toContain("is not a directory");
  });

  it("keep dsh's own session store out of the view: not listed, not readable, also through a symlink", async () => {
    const root = join(dir, "with-store");
    await mkdir(join(root, ".dsh", "sessions"), { recursive: true });
    await writeFile(join(root, ".dsh", "sessions", "s.jsonl"), "a session log");
    await writeFile(join(root, "a.txt"), "alpha");
    await symlink(join(root, ".dsh", "sessions", "s.jsonl"), join(root, "alias.txt"));
    const [listDir, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    const text = async (tool: typeof listDir, args: object) => JSON.stringify((await tool!.invoke(JSON.stringify(args), context)).content);
    expect(await text(listDir, { path: "." })).toBe(JSON.stringify([{ type: "text", text: "a.txt\nalias.txt" }]));
    for (const path of [".dsh", ".dsh/sessions", "./.dsh/sessions/"]) expect(await text(listDir, { path })).toContain(`${path} does not exist`);
    for (const path of [".dsh/sessions/s.jsonl", "alias.txt"]) expect(await text(readFileTool, { path })).toContain(`${path} does not exist`);
  });

  it("never read outside while a path component is swapped between an inside directory and a symlink to an outside one", async () => {
    const root = join(dir, "race");
    await mkdir(join(root, "d"), { recursive: true });
    await mkdir(join(dir, "elsewhere"), { recursive: true });
    await writeFile(join(root, "d", "file.txt"), "inside");
    await writeFile(join(dir, "elsewhere", "file.txt"), "OUTSIDE-SECRET");
    const [, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    // Another process swaps the component as fast as it can, as an attacker would.
    const swap = `const fs = require("node:fs"); for (;;) { fs.renameSync("d", "d.real"); fs.symlinkSync(process.argv[1], "d"); fs.unlinkSync("d"); fs.renameSync("d.real", "d"); }`;
    const swapper = spawn(process.execPath, ["-e", swap, join(dir, "elsewhere")], { cwd: root, stdio: "ignore" });
    const results = [];
    for (let i = 0; i < 2000; i++) results.push(JSON.stringify((await readFileTool!.invoke('{"path":"d/file.txt"}', context)).content));
    swapper.kill("SIGKILL");
    expect(results.filter((result) => result.includes("OUTSIDE-SECRET"))).toEqual([]);
    expect(results.some((result) => result.includes("inside"))).toBe(true);
  });

  it("reads only what it returns from a large file, and refuses FIFOs and devices without hanging", async () => {
    const root = join(dir, "big");
    await mkdir(root, { recursive: true });
    await writeFile(join(root, "big.txt"), "x".repeat(200_000));
    execFileSync("mkfifo", [join(root, "pipe")]);
    await symlink("/dev/zero", join(root, "zero"));
    const [, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    const big = (await readFileTool!.invoke('{"path":"big.txt"}', context)).content[0] as { text: string };
    expect(big.text).toBe(`${"x".repeat(64 * 1024)}\n[truncated: 200000 bytes in all]`);
    expect(JSON.stringify((await readFileTool!.invoke('{"path":"pipe"}', context)).content)).toContain("pipe is not a regular file");
    expect(JSON.stringify((await readFileTool!.invoke('{"path":"zero"}', context)).content)).toContain("outside the working directory");
  });
});
