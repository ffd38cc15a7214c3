import type { EventLog } from "dsh-log";
import { toolResultEvent } from "dsh-surface";
import { compactSurface, type CompactionOptions } from "./compaction.js";
import { compactionEndEvent, stepEndEvent } from "./events.js";
import type { Loop } from "./loop.js";
import { trimToolResults } from "./maintenance.js";

/**
 * The token pressure measured from the log: input plus output tokens of the latest step that
 * reported usage, or `undefined` if none did since the surface last shrank (a completed compaction
 * or a trim), whose effect no usage has measured yet.
 */
export function measuredTokens(log: EventLog): number | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (compactionEndEvent.is(event) && event.data.outcome === "completed") return undefined;
    if (toolResultEvent.is(event) && event.data.replaces !== undefined) return undefined;
    if (stepEndEvent.is(event)) {
      const { usage } = event.data;
      return usage === undefined ? undefined : usage.inputTokens + usage.outputTokens;
    }
  }
  return undefined;
}

/**
 * Before a step: once the measured pressure reaches `threshold` of the context window, trims old tool
 * results (when `trim` is set) in one batch, or, when there is nothing to trim, compacts. Every
 * decision is a function of the log, so a replay decides the same way.
 */
export async function relievePressure(loop: Loop, options: CompactionOptions | undefined, signal: AbortSignal): Promise<void> {
  if (options === undefined) return;
  const measured = measuredTokens(loop.log);
  if (measured === undefined || measured < (options.threshold ?? 0.8) * options.contextWindow) return;
  if (options.trim !== undefined && (await trimToolResults(loop.log, loop.surface, options.trim)) > 0) return;
  await compactSurface({ log: loop.log, surface: loop.surface, runtime: loop.runtime, options, signal }, "threshold", measured);
}
