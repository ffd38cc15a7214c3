// 3. Reconstruction of a long session: load, fold and wire serialization of every request, streamed;
// the fast serializer (per-message fragments) against the straightforward one, byte for byte.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { createAgentRegistry, reconstructRequestStream, requestDispatchEvent, stepEndEvent, stepStartEvent, turnEndEvent, turnStartEvent } from "dsh-agent";
import { buildEpochHeader, requestHeaderEvent } from "dsh-header";
import { createJsonlLog, readJsonlLog, type EventInput } from "dsh-log";
import type { FrozenGenerateOptions } from "dsh-llm";
import { serializeRequest, serializeRequestBytes } from "dsh-openai-compatible";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { serializeRequestPlain } from "../packages/dsh-openai-compatible/src/test-support/plain-serialize.js";
import { median, timed } from "./util.js";

export interface ReconstructResult {
  readonly events: number;
  readonly requests: number;
  readonly logBytes: number;
  readonly wireBytes: number;
  readonly loadMs: number;
  /** Fold and fast serialization of every request, streamed. */
  readonly rebuildMs: number;
  /** Serializing every request to bytes with the straightforward serializer (median). */
  readonly plainSerializeMs: number;
  /** The same with `serializeRequestBytes` (median, each pass over freshly folded messages). */
  readonly fastSerializeMs: number;
  readonly identical: boolean;
  /** Growth of peak resident memory over the process's baseline, divided by the log's size on disk. */
  readonly peakGrowthOverLogSize: number;
}

/** The registry of the benchmark log: the agent's, plus `ui/` progress events a harness might log. */
export function benchRegistry() {
  return createAgentRegistry().ignore("ui/");
}

/**
 * Writes a log of `steps` steps (10 per turn) where each step makes one tool call and logs
 * `progressPerStep` non-model-visible progress events, the way a real harness logs streaming progress.
 */
export async function writeBenchLog(path: string, steps: number, progressPerStep: number): Promise<void> {
  const { log } = await createJsonlLog(path, { registry: benchRegistry() });
  const tools = [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }];
  const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, { maxTokens: 4096 }, tools);
  for (let step = 0; step < steps; step++) {
    const turn = Math.floor(step / 10);
    const inTurn = step % 10;
    const batch: EventInput[] = [];
    if (inTurn === 0) batch.push(turnStartEvent.input({ turn }));
    batch.push(stepStartEvent.input({ turn, step: inTurn }));
    if (step === 0) batch.push(systemMessageEvent.input({ content: "You are a benchmark agent.", source: "system-prompt" }));
    if (inTurn === 0) batch.push(userMessageEvent.input({ content: [{ type: "text", text: `Task ${turn}: summarize the files.` }], source: "user" }));
    if (step === 0) batch.push(requestHeaderEvent.input({ reason: "initial", header }));
    batch.push(requestDispatchEvent.input({ turn, step: inTurn }));
    for (let i = 0; i < progressPerStep; i++) batch.push({ type: "ui/progress", data: { step, tokens: i } });
    const callId = `call-${step}`;
    batch.push(
      assistantMessageEvent.input({ content: [{ type: "tool-call", callId, name: "read_file", arguments: JSON.stringify({ path: `src/file-${step}.ts` }) }], source: "model" }),
      toolResultEvent.input({ callId, toolName: "read_file", content: [{ type: "text", text: `export const value${step} = ${step}; // a short file\n` }], isError: false, source: "tool" }),
      stepEndEvent.input({ turn, step: inTurn, reason: "completed", finishReason: "tool-calls", usage: { inputTokens: 100 + step, outputTokens: 10, cacheReadTokens: 64, cacheWriteTokens: 0 } }),
    );
    if (inTurn === 9 || step === steps - 1) batch.push(turnEndEvent.input({ turn, reason: "completed" }));
    await log.append(batch);
  }
  await log.close();
}

export async function reconstructBench(path: string, baselineRssBytes: number): Promise<ReconstructResult> {
  const logBytes = (await stat(path)).size;
  const load = await timed(() => readJsonlLog(path, benchRegistry()));
  const { log } = load.value;
  // Each pass folds anew (fresh message objects, so no serializer sees another pass's cache) and then
  // serializes every request to bytes, as they go on the wire. Medians of three passes each.
  // First the streamed rebuild a reader runs (`dsh requests --wire`): its peak memory is what we report.
  const rebuild = await timed(async () => {
    for await (const { request } of reconstructRequestStream(log)) await serializeRequestBytes(request, { dialect: "deepseek" });
  });
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  const fastRuns: number[] = [];
  const plainRuns: number[] = [];
  let wireBytes = 0;
  let requests = 0;
  for (let pass = 0; pass < 3; pass++) {
    const rebuilt: FrozenGenerateOptions[] = [];
    for await (const { request } of reconstructRequestStream(log)) rebuilt.push(request);
    requests = rebuilt.length;
    wireBytes = 0;
    fastRuns.push((await timed(async () => {
      for (const request of rebuilt) wireBytes += (await serializeRequestBytes(request, { dialect: "deepseek" })).length;
    })).ms);
    if (pass < 2) {
      plainRuns.push((await timed(async () => {
        for (const request of rebuilt) Buffer.byteLength(await serializeRequestPlain(request, { dialect: "deepseek" }));
      })).ms);
    }
  }
  let identical = true;
  for await (const { request } of reconstructRequestStream(log)) {
    if ((await serializeRequestPlain(request, { dialect: "deepseek" })) !== (await serializeRequest(request, { dialect: "deepseek" }))) identical = false;
  }
  return {
    events: log.length,
    requests,
    logBytes,
    wireBytes,
    loadMs: load.ms,
    rebuildMs: rebuild.ms,
    plainSerializeMs: median(plainRuns),
    fastSerializeMs: median(fastRuns),
    identical,
    peakGrowthOverLogSize: (peakRssBytes - baselineRssBytes) / logBytes,
  };
}

// Run alone in a child process, so that peak memory belongs to this benchmark only.
// The log is written by a first child and read back by a second, so the baseline is a process that has loaded the code only.
if (process.argv[2] === "--write") {
  await writeBenchLog(join(process.argv[3]!, process.argv[6] ?? "bench.jsonl"), Number(process.argv[4]), Number(process.argv[5]));
}
if (process.argv[2] === "--read") {
  const baseline = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify(await reconstructBench(join(process.argv[3]!, "bench.jsonl"), baseline)));
}
