import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CacheRow } from "dsh-cache-report";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
let project: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-lifecycle-"));
  project = join(dir, "project");
  await mkdir(project);
  await writeFile(join(project, "notes.txt"), "Remember the milk.\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(argv, { cwd: project });
const received = async (path: string) => (await readFile(path, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as string);
const distinct = (bodies: string[]) => bodies.filter((body, i) => i === 0 || body !== bodies[i - 1]);

async function cacheRows(log: string): Promise<CacheRow[]> {
  const result = await cli("cache", log, "--json");
  expect(result.code).toBe(0);
  return result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as CacheRow);
}

describe("resume, compact and fork from the command line", () => {
  it("attributes every prefix break to a logged event and rebuilds every body sent, across processes", async () => {
    const log = join(dir, "session.jsonl");
    const wire = join(dir, "wire.jsonl");
    expect((await cli("run", "--log", log, "--record-wire", wire, "What is here?")).code).toBe(0);
    expect((await cli("resume", log, "--record-wire", wire, "Anything else?")).code).toBe(0);
    expect((await cli("resume", log, "--model", "sim-2", "--record-wire", wire, "Look again.")).code).toBe(0);
    const compacted = await cli("compact", log, "--keep", "2");
    expect(compacted).toMatchObject({ code: 0, stdout: expect.stringMatching(/^compacted the messages logged at seqs \d+\.\.\d+ into one summary\n$/) });
    expect((await cli("resume", log, "--record-wire", wire, "Once more, briefly.")).code).toBe(0);

    const rows = await cacheRows(log);
    const breaks = rows.filter((row) => row.isBreak);
    expect(breaks.every((row) => row.explanations.length > 0)).toBe(true);
    expect(breaks.map((row) => row.explanations.join(" | "))).toEqual([
      expect.stringMatching(/^resumed with other settings: model "sim-1" → "sim-2"/),
      // The resume after the compaction changed no setting: the compaction is the one cause.
      expect.stringMatching(/^older messages were replaced by a summary: the messages logged at seqs \d+\.\.\d+ \(seq \d+\)$/),
    ]);
    const { log: events } = await readJsonlLog(log, createAgentRegistry());
    const reasons = events.slice().filter((event) => event.type === "request/header").map((event) => (event.data as { reason: string }).reason);
    expect(reasons).toEqual(["initial", "resume", "resume", "resume"]);
    expect(events.slice().find((event) => event.type === "compaction/summary")?.data).toMatchObject({ provider: "sim", model: "sim-2", maxTokens: 1024 });

    const rebuilt = (await cli("requests", log, "--wire")).stdout.trimEnd().split("\n");
    // The summary call is a one-shot request: the simulator saw it, the loop never dispatched it.
    expect(distinct(await received(wire))).toEqual(rebuilt);

    const turnEnds = events.slice().filter((event) => event.type === "turn/end").map((event) => event.seq);
    const forkLog = join(dir, "fork.jsonl");
    const forked = await cli("fork", log, "--at", String(turnEnds[0]), "--log", forkLog, "--model", "sim-3", "Take another path.");
    expect(forked.code).toBe(0);
    expect(forked.stderr).toContain(`at seq ${turnEnds[0]} (${turnEnds[0]! + 1} events)`);
    const forkRead = await readJsonlLog(forkLog, createAgentRegistry());
    const parentRead = await readJsonlLog(log, createAgentRegistry());
    expect(forkRead.header.parent).toEqual({ sessionId: parentRead.header.sessionId, seedLength: turnEnds[0]! + 1 });
    const forkRows = await cacheRows(forkLog);
    expect(forkRows.find((row) => row.turn === 1 && row.step === 0)).toMatchObject({ isBreak: true, explanations: [expect.stringMatching(/^resumed with other settings: model "sim-1" → "sim-3"/)] });
  }, 30_000);

  it("keeps the session's own prompt and every explicit choice on resume, also when the model changes", async () => {
    const log = join(dir, "custom.jsonl");
    expect((await cli("run", "--log", log, "--system", "You are terse.", "--effort", "low", "What is here?")).code).toBe(0);
    expect((await cli("resume", log, "Anything else?")).code).toBe(0);
    expect((await cli("resume", log, "--model", "sim-2", "Look again.")).code).toBe(0);
    const { log: events } = await readJsonlLog(log, createAgentRegistry());
    const prompts = events.slice().filter((event) => event.type === "system/message").map((event) => (event.data as { content: string }).content);
    expect(prompts).toEqual(["You are terse."]);
    const headers = events.slice().filter((event) => event.type === "request/header").map((event) => event.data as { header: { config: object; adapterDefaults?: object } });
    expect(headers.map((data) => data.header.config)).toEqual([
      expect.objectContaining({ model: "sim-1", reasoningEffort: "low" }),
      expect.objectContaining({ model: "sim-1", reasoningEffort: "low" }),
      expect.objectContaining({ model: "sim-2", reasoningEffort: "low" }),
    ]);
    expect(headers.every((data) => !("reasoningEffort" in (data.header.adapterDefaults ?? {})))).toBe(true);
  }, 30_000);

  it("closes a crash-orphaned turn with logged closers when resuming", async () => {
    const log = join(dir, "crashed.jsonl");
    expect((await cli("run", "--log", log, "List it.")).code).toBe(0);
    const lines = (await readFile(log, "utf8")).split("\n");
    const cut = lines.findIndex((line) => line.includes('"type":"assistant/message"'));
    await writeFile(log, `${lines.slice(0, cut + 1).join("\n")}\n`);
    const resumed = await cli("resume", log, "Are you back?");
    expect(resumed.code).toBe(0);
    const { log: events } = await readJsonlLog(log, createAgentRegistry());
    const closers = events.slice(cut).slice(0, 4).map((event) => [event.type, (event.data as { reason?: string; source?: string }).reason ?? (event.data as { source?: string }).source]);
    expect(closers).toEqual([
      ["tool/result", "recovery"],
      ["step/end", "interrupted"],
      ["turn/end", "interrupted"],
      ["turn/start", undefined],
    ]);
  });

  it("refuses to fork inside a turn and names a valid point", async () => {
    const log = join(dir, "session.jsonl");
    await cli("run", "--log", log, "hi");
    const result = await cli("fork", log, "--at", "3", "--log", join(dir, "bad.jsonl"));
    expect(result.code).toBe(2);
    // Inside the first turn, the nearest point is that turn's end.
    expect(result.stderr).toMatch(/^dsh: seq 3 is inside turn 0; fork at the end of a turn, such as seq \d+\n$/);
  });
});
