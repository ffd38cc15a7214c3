// 11. The step after a major GC: one session's per-step cost (request build and the bytes handed to
// fetch) right after a collection that freed another session, against its steady steps.
import { buildLoopRequest, createAgentRegistry } from "dsh-agent";
import { buildEpochHeader } from "dsh-header";
import { RequestFreezer, markAgentLoopRequest } from "dsh-llm";
import { EventLog, type EventInput } from "dsh-log";
import { serializeRequestBytes } from "dsh-openai-compatible";
import { SurfaceManager, assistantMessageEvent, systemMessageEvent, userMessageEvent } from "dsh-surface";
import { median, timed } from "./util.js";

const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, { maxTokens: 4096 });

/** A session in memory as the loop holds it: its log, its surface and its freezer. */
interface Session {
  readonly log: EventLog;
  readonly surface: SurfaceManager;
  readonly freezer: RequestFreezer;
  step: number;
}

async function session(messages: number): Promise<Session> {
  const log = new EventLog({ registry: createAgentRegistry() });
  const surface = new SurfaceManager(log);
  await log.append(systemMessageEvent.input({ content: "You are a benchmark.", source: "system-prompt" }));
  const batch: EventInput[] = [];
  for (let i = 0; i < messages / 2; i++) {
    batch.push(userMessageEvent.input({ content: [{ type: "text", text: `Question ${i}: what does file ${i} contain?` }], source: "user" }));
    batch.push(assistantMessageEvent.input({ content: [{ type: "text", text: `File ${i} holds configuration for module ${i}.` }], source: "model" }));
  }
  for (let i = 0; i < batch.length; i += 5000) await log.append(batch.slice(i, i + 5000));
  const made = { log, surface, freezer: new RequestFreezer(), step: 0 };
  await step(made);
  return made;
}

/** One step: a new user message, the request built, frozen and marked, and its body serialized. */
async function step(s: Session): Promise<void> {
  await s.log.append(userMessageEvent.input({ content: [{ type: "text", text: `Step ${s.step++}.` }], source: "user" }));
  const request = markAgentLoopRequest(buildLoopRequest(s.surface.deriveMessages(), header, { freezer: s.freezer }));
  await serializeRequestBytes(request, { dialect: "deepseek" });
}

export interface GcCliffResult {
  readonly messages: number;
  readonly steadyMs: number;
  readonly afterGcMs: number;
  readonly ratio: number;
}

/** Medians of `rounds` steady steps and of `rounds` steps each right after a GC that freed another session. */
export async function gcCliffBench(messages: number, rounds: number): Promise<GcCliffResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("the GC bench needs --expose-gc");
  const kept = await session(messages);
  for (let i = 0; i < 20; i++) await step(kept);
  const steady: number[] = [];
  const afterGc: number[] = [];
  for (let round = 0; round < rounds; round++) {
    gc();
    for (let i = 0; i < 5; i++) steady.push((await timed(() => step(kept))).ms);
    // Another session comes and goes; the collection frees it; the kept session's next step is timed.
    let other: Session | undefined = await session(messages);
    await step(other);
    other = undefined;
    gc();
    afterGc.push((await timed(() => step(kept))).ms);
  }
  const steadyMs = median(steady);
  const afterGcMs = median(afterGc);
  return { messages, steadyMs, afterGcMs, ratio: afterGcMs / steadyMs };
}

if (process.argv[2] === "--gc-cliff") {
  process.stdout.write(JSON.stringify(await gcCliffBench(Number(process.argv[3] ?? 10_000), Number(process.argv[4] ?? 9))));
}
