import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { testPostgres } from "dsh-store-conformance/postgres-suite";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
const server = testPostgres();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-stores-"));
  await mkdir(join(dir, "project"));
  await writeFile(join(dir, "project", "README.md"), "# Sample\n");
  return () => rm(dir, { recursive: true, force: true });
});

const cwd = () => join(dir, "project");
const cli = (...argv: string[]) => runCli(argv, { cwd: cwd() });
const scenario = async (name: string, responses: readonly object[]) => {
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify({ responses }));
  return path;
};
const steps = [{ text: "Looking.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "A readme." }];
const received = async (path: string) => (await readFile(path, "utf8")).trimEnd().split("\n").map((line) => `${JSON.parse(line) as string}\n`).join("");
/** The session id `dsh run` reports in its `dsh: log: STORE#ID` line. */
const idOf = (stderr: string) => /dsh: log: .*#([^\s#]+)\n/.exec(stderr)?.[1];

describe("sessions in SQLite and PostgreSQL from the command line", () => {
  it("runs into SQLite, lists, copies to PostgreSQL and to a JSONL directory, and every copy rebuilds the same wire bytes", async () => {
    const sqlite = "sqlite:sessions.db";
    const wire = join(dir, "wire.jsonl");
    const run = await cli("run", "--store", sqlite, "--scenario", await scenario("a", steps), "--record-wire", wire, "What is here?");
    expect(run.code).toBe(0);
    const id = idOf(run.stderr)!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await cli("sessions", "--store", sqlite);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  \\S+Z  \\s*\\d+`, "m"));
    const sent = await received(wire);
    expect((await cli("requests", id, "--store", sqlite, "--wire")).stdout).toBe(sent);

    const postgres = await server.createDatabase();
    expect((await cli("copy", id, postgres, "--store", sqlite)).code).toBe(0);
    expect((await cli("requests", `${postgres}#${id}`, "--wire")).stdout).toBe(sent);
    expect((await runCli(["requests", id, "--wire"], { cwd: cwd(), env: { DSH_STORE: postgres } })).stdout).toBe(sent);
    expect((await cli("copy", `${postgres}#${id}`, "copies")).code).toBe(0);
    expect((await cli("requests", id, "--store", "copies", "--wire")).stdout).toBe(sent);
    expect((await cli("copy", id, postgres, "--store", sqlite)).stderr).toMatch(/already exists/);
    // A target ending in .jsonl is a file, never a directory of that name.
    expect((await cli("copy", id, "out.jsonl", "--store", sqlite)).code).toBe(0);
    expect((await stat(join(cwd(), "out.jsonl"))).isFile()).toBe(true);
    expect((await cli("requests", "out.jsonl", "--wire")).stdout).toBe(sent);
    expect(await cli("copy", id, "out.jsonl", "--store", sqlite)).toMatchObject({ code: 3, stderr: expect.stringMatching(/out\.jsonl already exists/) });
  });

  it("resumes and forks a PostgreSQL session, the fork recorded with its parent", async () => {
    const postgres = await server.createDatabase();
    const run = await cli("run", "--store", postgres, "--scenario", await scenario("b", steps), "Look.");
    const id = idOf(run.stderr)!;
    expect(run.stderr).not.toContain(postgres.split("@")[0]!.split(":")[2]!); // the password stays out of the output
    const wire = join(dir, "resume.jsonl");
    const resumed = await cli("resume", id, "--store", postgres, "--scenario", await scenario("c", [{ text: "Again." }]), "--record-wire", wire, "More?");
    expect(resumed.stderr).toContain("turn 1 completed");
    expect(resumed.code).toBe(0);
    expect((await cli("requests", id, "--store", postgres, "--wire")).stdout.endsWith(await received(wire))).toBe(true);
    const events = (await cli("inspect", id, "--store", postgres)).stdout;
    const end = Number(/^\s*(\d+) turn 0 ended/m.exec(events)?.[1]);
    const fork = await cli("fork", id, "--at", String(end), "--store", postgres);
    expect(fork.stderr).toMatch(new RegExp(`^dsh: forked ${id} at seq ${end} \\(${end + 1} events\\) into postgres://postgres:\\*\\*\\*@`));
    expect(fork.code).toBe(0);
    const sessions = (await cli("sessions", "--store", postgres, "--json")).stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { sessionId: string; parent?: { sessionId: string; seedLength: number } });
    expect(sessions.find((session) => session.parent !== undefined)?.parent).toEqual({ sessionId: id, seedLength: end + 1 });
  });

  it("says in one line, in every command that loads it, that a fork's parent is gone, and refuses rows that disagree with the head in every reader", async () => {
    const sqlite = "sqlite:sessions.db";
    const run = await cli("run", "--store", sqlite, "--scenario", await scenario("p", steps), "Look.");
    const id = idOf(run.stderr)!;
    const end = Number(/^\s*(\d+) turn 0 ended/m.exec((await cli("inspect", id, "--store", sqlite)).stdout)?.[1]);
    const fork = await cli("fork", id, "--at", String(end), "--store", sqlite, "--scenario", await scenario("f", [{ text: "Forked." }]), "And now?");
    expect(fork.code).toBe(0);
    const forkId = idOf(fork.stderr)!;
    const db = new Database(join(cwd(), "sessions.db"));
    db.prepare("DELETE FROM dsh_events WHERE session_id = ?").run(id);
    db.prepare("DELETE FROM dsh_sessions WHERE id = ?").run(id);
    const note = `dsh: note: session ${forkId} is a fork whose lineage is broken: its parent ${id} is not in this store\n`;
    for (const argv of [["inspect", forkId], ["requests", forkId], ["resume", forkId, "--scenario", await scenario("r", [{ text: "Resumed." }]), "More?"], ["cost", forkId], ["verify", forkId]]) {
      const result = await cli(...argv, "--store", sqlite);
      expect([argv[0], result.stderr.split("\n").filter((line) => line.includes("lineage")).map((line) => `${line}\n`)]).toEqual([argv[0], [note]]);
      expect(result.code, `${argv[0]}: ${result.stderr}`).toBe(0);
    }
    // A head that disagrees with the rows is refused by every reader, the streaming ones too.
    db.prepare("UPDATE dsh_sessions SET head = head + 1 WHERE id = ?").run(forkId);
    db.close();
    for (const command of ["inspect", "requests", "cost"]) {
      expect(await cli(command, forkId, "--store", sqlite)).toMatchObject({ code: 3, stderr: expect.stringMatching(/its head says \d+ events, but its rows hold \d+ \[LOG_CORRUPT\]\n$/) });
    }
  });

  it("follows a session live: inspect --follow prints what another command appends", async () => {
    const sqlite = "sqlite:live.db";
    const id = idOf((await cli("run", "--store", sqlite, "--scenario", await scenario("d", steps), "Look.")).stderr)!;
    const stop = new AbortController();
    // The follower is stopped once it printed the resumed turn's answer (the test's timeout bounds the wait).
    const following = runCli(["inspect", id, "--store", sqlite, "--follow"], { cwd: cwd(), signal: stop.signal, onStdout: (stdout) => stdout.includes('assistant: "Later answer."') && stop.abort() });
    const resumed = await cli("resume", id, "--store", sqlite, "--scenario", await scenario("e", [{ text: "Later answer." }]), "And now?");
    expect(resumed.code).toBe(0);
    const output = (await following).stdout;
    expect(output).toContain('user [user]: "And now?"');
    expect(output).toContain('assistant: "Later answer."');
  });
});
