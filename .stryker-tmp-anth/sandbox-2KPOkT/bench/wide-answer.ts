// 8. Commands on one answer with many tool calls: every command's time per call at N and 4N calls,
// as a ratio (1.0 is linear). A log is written directly, then each command runs in this process.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { requestDispatchEvent, stepEndEvent, stepStartEvent, turnEndEvent, turnStartEvent } from "dsh-agent";
import { buildEpochHeader, requestHeaderEvent } from "dsh-header";
import { createJsonlLog, type EventInput } from "dsh-log";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { runCli } from "../packages/dsh-cli/src/test-support/run-cli.js";
import { benchRegistry } from "./reconstruct.js";
import { timed } from "./util.js";

/** Writes a session whose one answer makes `calls` tool calls, their results, and the closing answer. */
export async function writeWideAnswerLog(path: string, calls: number): Promise<void> {
  const { log } = await createJsonlLog(path, { registry: benchRegistry() });
  const tools = [{ name: "probe", description: "Probe one item", parameters: { type: "object", properties: { i: { type: "number" } } } }];
  const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, { maxTokens: 4096 }, tools);
  const ids = Array.from({ length: calls }, (_, i) => `call_${i}`);
  const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 64, cacheWriteTokens: 0 };
  await log.append([
    turnStartEvent.input({ turn: 0 }),
    stepStartEvent.input({ turn: 0, step: 0 }),
    systemMessageEvent.input({ content: "You probe items.", source: "system-prompt" }),
    userMessageEvent.input({ content: [{ type: "text", text: "Probe every item." }], source: "user" }),
    requestHeaderEvent.input({ reason: "initial", header }),
    requestDispatchEvent.input({ turn: 0, step: 0 }),
    assistantMessageEvent.input({ content: ids.map((callId, i) => ({ type: "tool-call", callId, name: "probe", arguments: `{"i":${i}}` })), source: "model" }),
    stepEndEvent.input({ turn: 0, step: 0, reason: "completed", finishReason: "tool-calls", usage }),
  ]);
  for (let start = 0; start < calls; start += 1000) {
    const results: EventInput[] = ids.slice(start, start + 1000).map((callId, i) => toolResultEvent.input({ callId, toolName: "probe", content: [{ type: "text", text: `item ${start + i} is fine` }], isError: false, source: "tool" }));
    await log.append(results);
  }
  await log.append([
    stepStartEvent.input({ turn: 0, step: 1 }),
    requestDispatchEvent.input({ turn: 0, step: 1 }),
    assistantMessageEvent.input({ content: [{ type: "text", text: "All items are fine." }], source: "model" }),
    stepEndEvent.input({ turn: 0, step: 1, reason: "completed", finishReason: "stop", usage }),
    turnEndEvent.input({ turn: 0, reason: "completed" }),
  ]);
  await log.close();
}

export interface WideAnswerRow {
  readonly command: string;
  readonly smallMs: number;
  readonly largeMs: number;
  /** Time per call at 4N over time per call at N: 1.0 is linear, 4.0 quadratic. */
  readonly perCallRatio: number;
}

const COMMANDS = [["inspect"], ["requests"], ["requests", "--wire"], ["cache"], ["view", "-o", "view.html"]] as const;

/** Times every command on a log of `calls` and of `4 * calls` tool calls in one answer. */
export async function wideAnswerBench(dir: string, calls: number): Promise<{ calls: number; logBytes: number; rows: WideAnswerRow[] }> {
  const small = join(dir, "wide-small.jsonl");
  const large = join(dir, "wide-large.jsonl");
  await writeWideAnswerLog(small, calls);
  await writeWideAnswerLog(large, 4 * calls);
  const time = async (argv: readonly string[], path: string) => {
    const run = await timed(() => runCli([...argv, path], { cwd: dir }));
    if (run.value.code !== 0) throw new Error(`dsh ${argv.join(" ")} exited ${run.value.code}: ${run.value.stderr}`);
    return run.ms;
  };
  const rows: WideAnswerRow[] = [];
  for (const argv of COMMANDS) {
    await time(argv, small); // warm up the modules and the JIT
    const smallMs = await time(argv, small);
    const largeMs = await time(argv, large);
    rows.push({ command: argv.join(" "), smallMs, largeMs, perCallRatio: largeMs / 4 / smallMs });
  }
  return { calls, logBytes: (await stat(large)).size, rows };
}
