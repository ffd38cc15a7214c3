import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";
import { createAgentRegistry } from "dsh-agent";
import { JsonlStore } from "dsh-log";
import { wireSha256 } from "dsh-wire";
import { attachmentStore } from "./session.js";
import { firstDifference, type WhatIfReport } from "dsh-what-if";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-what-if-"));
  await writeFile(join(dir, "notes.txt"), "Remember: the cache is a prefix.\n".repeat(6));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A long prompt, above Claude Sonnet's 1,024-token cache minimum, so the prefix is cached. */
const SYSTEM = `You are careful. ${"Check every file twice before answering. ".repeat(200)}`;

/** A recorded two-turn session on the simulated Messages API, and the seq its second turn starts at. */
async function twoTurns(provider = "sim-anthropic"): Promise<{ log: string; turn1: number }> {
  const log = join(dir, "s.jsonl");
  expect((await runCli(["run", "--provider", provider, "--system", SYSTEM, "--log", log, "read notes.txt"], { cwd: dir })).code).toBe(0);
  expect((await runCli(["resume", log, "and again"], { cwd: dir })).code).toBe(0);
  const lines = (await readFile(log, "utf8")).trim().split("\n").slice(1);
  const events = lines.map((line) => JSON.parse(line.replace(/^\{"chain":"[^"]*",/, "{")) as { seq: number; type: string });
  return { log, turn1: events.filter((event) => event.type === "turn/start")[1]!.seq };
}

async function whatIf(args: readonly string[]): Promise<WhatIfReport> {
  const result = await runCli(["what-if", ...args, "--json"], { cwd: dir });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as WhatIfReport;
}

describe("dsh what-if", () => {
  it("shows the cache reads a new prompt at the start of turn 1 loses, and what they cost", async () => {
    const { log, turn1 } = await twoTurns();
    const report = await whatIf([log, "--at", String(turn1), "--system", "You are brief."]);
    expect(report.fork).toBe(turn1);
    // Turn 0 is the seed: the same requests on both sides.
    const turn0 = (session: WhatIfReport["recorded"]) => session.requests.filter((request) => request.turn === 0);
    expect(turn0(report.whatIf)).toEqual(turn0(report.recorded));
    // The first request of turn 1 breaks the prefix at node 0, for the logged prompt change.
    const first = report.whatIf.requests.find((request) => request.turn === 1)!;
    const recordedFirst = report.recorded.requests.find((request) => request.turn === 1)!;
    expect(recordedFirst.cacheReadTokens).toBeGreaterThan(1000);
    expect(first.cacheReadTokens).toBe(0);
    expect(report.breaks).toContainEqual({ turn: 1, step: 0, in: "whatIf", causes: [expect.stringMatching(/^the system prompt changed: the message logged at seq 2 \(seq \d+\)$/)] });
    expect(report.delta.cacheReadTokens).toBeLessThan(0);
    expect(report.changedRequests).toBe(report.whatIf.requests.filter((request) => request.turn === 1).length);
    // Losing reads of a long prompt costs more even though the new prompt is shorter.
    expect(report.delta.costUsd).toBeCloseTo(report.whatIf.totals.costUsd - report.recorded.totals.costUsd, 12);
    expect(report.recorded.totals.unpriced).toBe(0);

    const text = (await runCli(["what-if", log, "--at", String(turn1), "--system", "You are brief."], { cwd: dir })).stdout;
    expect(text).toContain(`what if the system prompt "You are brief." from seq ${turn1} on:`);
    expect(text).toMatch(/^1\.0 .* break: the system prompt changed: the message logged at seq 2 \(seq \d+\)$/m);
    expect(text).toContain(`delta: cache reads ${report.delta.cacheReadTokens} tokens`);
    expect(text).toContain("Modelled: the recorded answers and tool results are reused after the change");
  });

  it("gives a zero delta for a change that alters nothing, and for the recorded session against itself", async () => {
    const { log, turn1 } = await twoTurns();
    const same = await whatIf([log, "--at", String(turn1), "--system", SYSTEM]);
    expect(same.delta).toEqual({ promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, inputTokens: 0, costUsd: 0 });
    expect(same.changedRequests).toBe(0);
    expect(same.whatIf).toEqual(same.recorded);
    expect(same.breaks.every((entry) => entry.in === "both")).toBe(true);
    const model = await whatIf([log, "--at", "0", "--model", "claude-sonnet-4-6"]);
    expect(model.delta.costUsd).toBe(0);
  });

  it("prices another model from the fork on, and the tools of a file, with the breaks they cause", async () => {
    const { log, turn1 } = await twoTurns();
    const opus = await whatIf([log, "--at", String(turn1), "--model", "claude-opus-4-8"]);
    expect(opus.whatIf.requests.filter((request) => request.turn === 1).every((request) => request.model === "claude-opus-4-8")).toBe(true);
    expect(opus.breaks.find((entry) => entry.turn === 1 && entry.step === 0)?.causes.join(" ")).toMatch(/^resumed with other settings: model "claude-sonnet-4-6" → "claude-opus-4-8"; /);
    expect(opus.delta.costUsd).toBeGreaterThan(0); // Opus costs more, and reads nothing Sonnet wrote

    await writeFile(join(dir, "tools.json"), JSON.stringify([{ name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }]));
    const tools = await whatIf([log, "--at", "0", "--tools", "tools.json"]);
    expect(tools.fork).toBe(0);
    expect(tools.changedRequests).toBe(tools.whatIf.requests.length);
    expect(tools.delta.promptTokens).not.toBe(0);
  });

  it("drops a tool result at the start of turn 1: the break names the replacement, later requests are shorter", async () => {
    const { log, turn1 } = await twoTurns();
    const events = (await readFile(log, "utf8")).trim().split("\n").slice(1).map((line) => JSON.parse(line.replace(/^\{"chain":"[^"]*",/, "{")) as { seq: number; type: string });
    // The longest result of turn 0 (the file's contents): dropping it surely shortens what follows.
    const results = events.filter((event) => event.type === "tool/result" && event.seq < turn1);
    const result = results.reduce((longest, event) => (JSON.stringify(event).length > JSON.stringify(longest).length ? event : longest));
    const report = await whatIf([log, "--at", String(turn1), "--drop", String(result.seq)]);
    expect(report.change).toBe(`the message logged at seq ${result.seq} replaced by "[removed]"`);
    expect(report.breaks).toContainEqual({ turn: 1, step: 0, in: "whatIf", causes: [`a message was replaced (source what-if): the message logged at seq ${result.seq} (seq ${turn1})`] });
    expect(report.delta.promptTokens).toBeLessThan(0);
    expect(report.whatIf.requests.filter((request) => request.turn === 0)).toEqual(report.recorded.requests.filter((request) => request.turn === 0));
  });

  it("compacts at a share of the window where the recording did not, with a placeholder summary it says it used", async () => {
    const { log, turn1 } = await twoTurns();
    const report = await whatIf([log, "--at", String(turn1), "--context-window", "4000", "--compact-at", "0.4"]);
    expect(report.change).toBe("compaction at 40 % of the context window");
    expect(report.notes).toContainEqual(expect.stringMatching(/^\d+ compaction\(s\) the recording did not make summarize to a placeholder text/));
    const compacted = report.breaks.filter((entry) => entry.in === "whatIf" && entry.causes.some((cause) => cause.startsWith("older messages were replaced by a summary")));
    expect(compacted.length).toBeGreaterThan(0);
    // A second compaction replaces the first summary and what followed it: a range in surface order, not seq order.
    expect(report.breaks.flatMap((entry) => entry.causes).some((cause) => /^older messages were replaced by a summary: the messages from the one logged at seq (\d+) to the one logged at seq \d+ \(seq \d+\)$/.test(cause))).toBe(true);
    expect(report.delta.promptTokens).toBeLessThan(0);
    // The same window at the default share never compacts this session: no change.
    const unchanged = await whatIf([log, "--at", String(turn1), "--context-window", "4000", "--compact-at", "0.8"]);
    expect(unchanged.delta.costUsd).toBe(0);
    expect(unchanged.notes).toEqual([]);
    expect(await runCli(["what-if", log, "--at", String(turn1), "--compact-at", "0.5"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: --compact-at needs --context-window N: the window the share is of (as dsh run takes it)\n" });
    expect(await runCli(["what-if", log, "--at", String(turn1), "--compact-at", "2"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: --compact-at takes a share of the context window, above 0 and at most 1\n" });
  });

  it("finds the first request whose bytes differ from the recording's, a missing or an extra one included", async () => {
    const { log } = await twoTurns();
    const session = await new JsonlStore(dir).read("s", createAgentRegistry());
    const attachments = attachmentStore(dir, undefined);
    const bodies = (await runCli(["requests", log, "--wire"], { cwd: dir })).stdout.trim().split("\n");
    expect(bodies.length).toBe(6);
    const digests = bodies.map(wireSha256);
    expect(await firstDifference(session.log, digests, attachments)).toBeUndefined();
    expect(await firstDifference(session.log, bodies.map((body, i) => wireSha256(i === 3 ? body.replace("again", "agian") : body)), attachments)).toBe(3);
    expect(await firstDifference(session.log, digests.slice(0, 4), attachments)).toBe(4);
    expect(await firstDifference(session.log, [...digests, wireSha256("{}")], attachments)).toBe(6);
  });

  it("replays with the step limit the recording shows when --max-steps is not given", async () => {
    // Twenty tool steps, past the default limit of 16, then a turn that stopped at a limit of 3.
    const steps = (count: number) => Array.from({ length: count }, (_, i) => ({ text: `Step ${i}.`, toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }));
    const scenario = join(dir, "long.json");
    await writeFile(scenario, JSON.stringify({ responses: [...steps(20), { text: "Done." }] }));
    const log = join(dir, "long.jsonl");
    expect((await runCli(["run", "--scenario", scenario, "--max-steps", "30", "--log", log, "read it"], { cwd: dir })).code).toBe(0);
    const long = await whatIf([log, "--at", "0", "--system", "You are brief."]);
    expect(long.whatIf.requests).toHaveLength(21);
    expect(long.notes).toEqual([]);
    await writeFile(scenario, JSON.stringify({ responses: steps(3) }));
    const resumed = await runCli(["resume", log, "--scenario", scenario, "--max-steps", "3", "again"], { cwd: dir });
    expect(resumed.stderr).toContain("dsh: turn 1 max-steps after 3 step(s)");
    const stopped = await whatIf([log, "--at", String(long.fork + 1), "--system", "You are brief."]);
    expect(stopped.whatIf.requests.filter((request) => request.turn === 1)).toHaveLength(3);
    expect(stopped.notes).toEqual([]);
    // Both turns replayed at once need two limits.
    expect(await runCli(["what-if", log, "--at", "0", "--system", "x"], { cwd: dir })).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: the recorded turns ran under different step limits \(turn 1 stopped at its limit after 3 step\(s\), turn 0 ran 21\)/) });
  });

  it("refuses bad arguments in one line each", async () => {
    const { log } = await twoTurns();
    const run = (args: readonly string[]) => runCli(["what-if", log, ...args], { cwd: dir });
    expect(await run(["--system", "x"])).toMatchObject({ code: 2, stderr: "dsh: --at takes the seq of the event the change is made at (a whole number)\n" });
    expect(await run(["--at", "1"])).toMatchObject({ code: 2, stderr: "dsh: give exactly one change: --system TEXT, --tools FILE, --model M, --drop SEQ or --compact-at SHARE\n" });
    expect(await run(["--at", "1", "--drop", "x"])).toMatchObject({ code: 2, stderr: "dsh: --drop takes the seq of the message to drop (a whole number)\n" });
    expect(await run(["--at", "1", "--drop", "2"])).toMatchObject({ code: 2, stderr: "dsh: --drop 2: only a user message or a tool result can be dropped, and seq 2 is a system/message\n" });
    expect(await run(["--at", "1", "--drop", "0"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: --drop 0: seq 0 is no message of the session at the fork point/) });
    expect(await run(["--at", "1", "--system", "x", "--model", "m"])).toMatchObject({ code: 2 });
    expect(await run(["--at", "100000", "--system", "x"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: --at 100000: no turn starts at or after seq 100000 \(turns start at seq 0, \d+\)\n$/) });
    await writeFile(join(dir, "bad.json"), JSON.stringify([{ name: "x" }]));
    expect(await run(["--at", "0", "--tools", "bad.json"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: --tools bad\.json: a JSON list of \{name, description, parameters\} tool schemas is expected; 0\.description: .+\n$/) });
  });
});
