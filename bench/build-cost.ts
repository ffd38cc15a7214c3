// 1. Per-step request build cost as history grows, against a naive re-derive-and-clone baseline.
import { buildLoopRequest, createAgentRegistry } from "dsh-agent";
import { buildEpochHeader } from "dsh-header";
import { RequestFreezer, freezeRequest, markAgentLoopRequest, type Message } from "dsh-llm";
import { EventLog, type EventInput } from "dsh-log";
import { SurfaceManager, assistantMessageEvent, deriveMessagesFromEvents, systemMessageEvent, userMessageEvent } from "dsh-surface";
import { median, timed, timedSync } from "./util.js";

const user = (i: number): EventInput => userMessageEvent.input({ content: [{ type: "text", text: `Question ${i}: what does file ${i} contain?` }], source: "user" });
const assistant = (i: number): EventInput =>
  assistantMessageEvent.input({ content: [{ type: "text", text: `File ${i} holds configuration for module ${i}, mostly defaults.` }], source: "model" });

export interface BuildCostRow {
  readonly priorSteps: number;
  /** Median build time of one request by the loop (cached projection, freeze, mark), ms. */
  readonly incrementalMs: number;
  /** Median time of the bare array copy of the messages, ms: the part that must grow. */
  readonly arrayCopyMs: number;
  /** Median build time when the whole history is re-derived and cloned each step, ms. */
  readonly naiveMs: number;
}

export async function buildCost(checkpoints: readonly number[], iterations: number): Promise<{ rows: BuildCostRow[]; ratio: { incremental: number; naive: number } }> {
  const log = new EventLog({ registry: createAgentRegistry() });
  const surface = new SurfaceManager(log);
  const freezer = new RequestFreezer();
  const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, { maxTokens: 4096 });
  await log.append(systemMessageEvent.input({ content: "You are a benchmark.", source: "system-prompt" }));
  let steps = 0;
  const rows: BuildCostRow[] = [];
  for (const target of checkpoints) {
    const batch: EventInput[] = [];
    for (; steps < target; steps++) batch.push(user(steps), assistant(steps));
    for (let i = 0; i < batch.length; i += 5000) await log.append(batch.slice(i, i + 5000));
    // Warm the projection cache and the session's freezer as the running loop would have.
    buildLoopRequest(surface.deriveMessages(), header, { freezer });
    const incremental: number[] = [];
    const copies: number[] = [];
    const naive: number[] = [];
    for (let i = 0; i < iterations; i++) {
      await log.append(user(steps + i));
      incremental.push(timedSync(() => markAgentLoopRequest(buildLoopRequest(surface.deriveMessages(), header, { freezer }))).ms);
      const messages = surface.deriveMessages();
      copies.push(timedSync(() => messages.slice()).ms);
    }
    for (let i = 0; i < Math.max(3, Math.floor(iterations / 4)); i++) {
      naive.push(
        (
          await timed(() => {
            const messages = structuredClone(deriveMessagesFromEvents(log.slice())) as Message[];
            return freezeRequest({ config: header.config, messages });
          })
        ).ms,
      );
    }
    rows.push({ priorSteps: target, incrementalMs: median(incremental), arrayCopyMs: median(copies), naiveMs: median(naive) });
  }
  const at = (n: number) => rows.find((row) => row.priorSteps === n)!;
  return {
    rows,
    ratio: { incremental: at(10_000).incrementalMs / (at(100)?.incrementalMs ?? 1), naive: at(10_000).naiveMs / (at(100)?.naiveMs ?? 1) },
  };
}
