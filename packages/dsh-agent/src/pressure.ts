import type { EventLog } from "dsh-log";
import { toolResultEvent } from "dsh-surface";
import { compactSurface, type CompactionOptions } from "./compaction.js";
import { compactionEndEvent, compactionForecastEvent, stepEndEvent, turnStartEvent, type CompactionReason } from "./events.js";
import type { Loop } from "./loop.js";
import { trimToolResults } from "./maintenance.js";
import { compactionRange } from "./summary.js";

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

/** A forecast's decision: the plan it chose, and for `at-expiry` the cache's lifetime it waits out. */
interface Decision {
  readonly choice: string;
  readonly idleMs: number | undefined;
}

function decisionOf(forecast: { readonly choice: string; readonly plans: readonly { readonly plan: string; readonly idleMs?: number }[] }): Decision {
  return { choice: forecast.choice, idleMs: forecast.plans.find((plan) => plan.plan === forecast.choice)?.idleMs };
}

/** What the log says a forecast decided for the open turn, or `undefined` when none was made this turn (or a compaction has run since). */
function decidedThisTurn(log: EventLog): Decision | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (turnStartEvent.is(event) || (compactionEndEvent.is(event) && event.data.outcome === "completed")) return undefined;
    if (compactionForecastEvent.is(event)) return decisionOf(event.data);
  }
  return undefined;
}

/** The pause (ms) from the last step's end to the latest event (this turn's start, say): logged times, so a replay measures the same. */
function pauseSinceLastStep(log: EventLog): number | undefined {
  const latest = log.get(log.length - 1);
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (stepEndEvent.is(event)) return latest!.time - event.time;
  }
  return undefined;
}

/**
 * Under pressure with a forecaster: follows the forecast made this turn, else asks for one (once
 * per turn) and logs it before acting. `at-expiry` compacts once the logged pause since the last
 * step reaches the cache's lifetime, when the rewrite costs nothing the cold cache would not cost anyway.
 */
async function forecastReason(loop: Loop, options: CompactionOptions, measured: number): Promise<CompactionReason | undefined> {
  let decided = decidedThisTurn(loop.log);
  if (decided === undefined) {
    const nodes = loop.surface.state.nodes.toArray();
    const span = compactionRange(nodes, options.keepRecent ?? 4);
    if (span === undefined) return "threshold";
    const summaryMaxTokens = options.summaryMaxTokens ?? 1024;
    const messages = loop.surface.deriveMessages();
    const forecast = await options.forecast!({ log: loop.log, measuredTokens: measured, contextWindow: options.contextWindow, messages, range: span, summaryMaxTokens });
    if (forecast === undefined) return "threshold";
    const range = { start: nodes[span.startIndex]!.seq, end: nodes[span.endIndex]!.seq };
    await loop.log.append(compactionForecastEvent.input({ ...forecast, measuredTokens: measured, range }));
    decided = decisionOf(forecast);
  }
  if (decided.choice === "now") return "threshold";
  if (decided.choice !== "at-expiry" || decided.idleMs === undefined) return undefined;
  const pause = pauseSinceLastStep(loop.log);
  return pause !== undefined && pause >= decided.idleMs ? "cache-expired" : undefined;
}

/**
 * Before a step: once the measured pressure reaches `threshold` of the context window, trims old tool
 * results (when `trim` is set) in one batch, or, when there is nothing to trim, compacts — or, with
 * a `forecast`, does what the logged forecast chose (past `forceAt` of the window, compacts anyway).
 * Every decision is logged before it is acted on, so a replay decides the same way.
 */
export async function relievePressure(loop: Loop, options: CompactionOptions | undefined, signal: AbortSignal): Promise<void> {
  if (options === undefined) return;
  const measured = measuredTokens(loop.log);
  if (measured === undefined || measured < (options.threshold ?? 0.8) * options.contextWindow) return;
  if (options.trim !== undefined && (await trimToolResults(loop.log, loop.surface, options.trim)) > 0) return;
  const forced = measured >= (options.forceAt ?? 0.95) * options.contextWindow;
  const reason = options.forecast === undefined || forced ? "threshold" : await forecastReason(loop, options, measured);
  if (reason === undefined) return;
  await compactSurface({ log: loop.log, surface: loop.surface, runtime: loop.runtime, options, signal }, reason, measured);
}
