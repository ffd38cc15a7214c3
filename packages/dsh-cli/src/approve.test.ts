import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-approve-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
  await writeFile(join(dir, "scenario.json"), JSON.stringify({ responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }, { name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "Done." }] }));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const events = async (path: string) => (await readFile(path, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { type: string; seq: number; data: Record<string, unknown> });

describe("dsh run --approve", () => {
  it("asks about each call on the terminal, runs the ones answered y, and logs every decision", async () => {
    const log = join(dir, "s.jsonl");
    const run = await runCli(["run", "--approve", "--scenario", "scenario.json", "--log", log, "look"], { cwd: dir, answers: ["y", "no"] });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('dsh: run list_dir {"path":"."}? [y/N] ');
    expect(run.stderr).toContain('dsh: run read_file {"path":"notes.txt"}? [y/N] ');
    const logged = await events(log);
    expect(logged.filter((event) => event.type === "tool/approval").map((event) => [event.data.toolName, event.data.allowed, event.data.by, event.data.reason])).toEqual([
      ["list_dir", true, "terminal", undefined],
      ["read_file", false, "terminal", "declined"],
    ]);
    const results = logged.filter((event) => event.type === "tool/result").map((event) => (event.data.content as { text: string }[])[0]!.text);
    expect(results[1]).toBe("Error [TOOL_DENIED]: not run: denied by terminal: declined");
  });

  it("denies every call once input has ended, and is a usage error where nothing can be asked", async () => {
    const log = join(dir, "t.jsonl");
    expect((await runCli(["run", "--approve", "--scenario", "scenario.json", "--log", log, "look"], { cwd: dir, answers: [] })).code).toBe(0);
    expect((await events(log)).filter((event) => event.type === "tool/approval").map((event) => event.data.reason)).toEqual(["no answer (input ended)", "no answer (input ended)"]);
    expect(await runCli(["run", "--approve", "--log", join(dir, "u.jsonl"), "look"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: --approve asks on the terminal, and this dsh has none to ask on\n" });
    // Refused before anything is created: no session file, no fork.
    expect(existsSync(join(dir, "u.jsonl"))).toBe(false);
    const at = (await events(log)).find((event) => event.type === "turn/end")!.seq;
    const fork = await runCli(["fork", log, "--at", String(at), "--approve", "--log", join(dir, "f.jsonl"), "again"], { cwd: dir });
    expect(fork).toMatchObject({ code: 2, stderr: "dsh: --approve asks on the terminal, and this dsh has none to ask on\n" });
    expect(existsSync(join(dir, "f.jsonl"))).toBe(false);
  });
});
