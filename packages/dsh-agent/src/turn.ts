import type { TurnListeners } from "./listeners.js";
import { foldRequestHeader, type RequestHeaderSnapshot } from "dsh-header";
import { LlmError, type TokenUsage } from "dsh-llm";
import { costTotals, stepCosts, type CostTotals, type StepCost } from "./cost.js";
import type { StepOutcome } from "./answer.js";
import { StepFailure } from "./attempts.js";
import { compactSurface } from "./compaction.js";
import { turnEndEvent, type TurnEndReason } from "./events.js";
import { loggedError } from "./logged-error.js";
import type { Loop } from "./loop.js";
import { loopAdmission } from "./loop-rule.js";
import { relievePressure } from "./pressure.js";
import { runStep } from "./step.js";

/** The tokens of a turn's requests, added up over the answers the provider reported usage for. */
export interface TurnUsage {
  /** Whole prompts, cached parts included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

/** How a turn ended. */
export interface TurnResult {
  readonly turn: number;
  readonly reason: TurnEndReason;
  readonly steps: number;
  /** The text of the last assistant message of the turn, if any. */
  readonly text: string;
  /** The turn's token totals (the compaction summary's own call not included). */
  readonly usage: TurnUsage;
  /** What each step with reported usage cost at the adapters' prices, and the turn's totals. */
  readonly cost: { readonly steps: readonly StepCost[]; readonly totals: CostTotals };
  /** With `run(input, { output })` and a completed turn: the final answer as a value, or why it is not one. */
  readonly output?: { readonly value: unknown } | { readonly error: string };
}

const NO_USAGE: TurnUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

function addUsage(total: TurnUsage, usage: TokenUsage | undefined): TurnUsage {
  if (usage === undefined) return total;
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + usage.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + usage.cacheWriteTokens,
  };
}

function isOverflow(error: unknown): boolean {
  return error instanceof StepFailure && error.failure instanceof LlmError && error.failure.code === "LLM_CONTEXT_OVERFLOW";
}

/** The `turn/end` of `turn`, naming every value still queued for the model, so none is lost without a trace. */
export function turnEnd(loop: Pick<Loop, "inbox">, data: { turn: number; reason: TurnEndReason; error?: ReturnType<typeof loggedError> }) {
  const pending = loop.inbox.peek();
  return turnEndEvent.input(pending.length === 0 ? data : { ...data, pending: pending.map(({ content, source }) => ({ content, source })) });
}

/** Where the turn's events start in the log, and the header snapshot in force there. */
interface TurnStart {
  readonly seq: number;
  readonly header: RequestHeaderSnapshot | undefined;
}

async function endTurn(loop: Loop, start: TurnStart, turn: number, reason: TurnEndReason, steps: number, text: string, usage: TurnUsage): Promise<TurnResult> {
  await loop.log.append(turnEnd(loop, { turn, reason }));
  const costs = stepCosts(loop.log.slice(start.seq), (provider, model) => loop.runtime.price(provider, model), start.header);
  return { turn, reason, steps, text, usage, cost: { steps: costs, totals: costTotals(costs) } };
}

/**
 * Steps the open turn until the model answers without tool calls and the inbox is empty, the step
 * limit, a rejection, an abort or a failure. Pressure is relieved before each step; a context
 * overflow compacts once and retries. A failure is logged with the turn's end, then thrown.
 */
export async function runTurn(
  loop: Loop,
  turn: number,
  signal: AbortSignal,
  listeners: TurnListeners,
): Promise<TurnResult> {
  const { maxSteps, compaction } = loop.settings;
  let text = "";
  let usage = NO_USAGE;
  let compactedForOverflow = false;
  const start: TurnStart = { seq: loop.log.length, header: foldRequestHeader(loop.log) };
  try {
    for (let step = 0; step < maxSteps; step++) {
      await relievePressure(loop, compaction, signal);
      let outcome: StepOutcome | "blocked";
      try {
        outcome = await runStep(loop, turn, step, signal, listeners);
      } catch (error) {
        if (!isOverflow(error) || compactedForOverflow || compaction === undefined) throw error;
        compactedForOverflow = true;
        const compacted = await compactSurface({ log: loop.log, surface: loop.surface, runtime: loop.runtime, options: compaction, signal }, "overflow");
        if (compacted.outcome !== "completed") throw error;
        continue;
      }
      if (outcome === "blocked") return await endTurn(loop, start, turn, "blocked", step, text, usage);
      text = outcome.text || text;
      usage = addUsage(usage, outcome.usage);
      if (outcome.reason !== "completed") return await endTurn(loop, start, turn, outcome.reason, step + 1, text, usage);
      if (!outcome.continueTurn && loop.inbox.size === 0) return await endTurn(loop, start, turn, "completed", step + 1, text, usage);
    }
    return await endTurn(loop, start, turn, "max-steps", maxSteps, text, usage);
  } catch (error) {
    const failure = error instanceof StepFailure ? error.failure : error;
    if (loop.log.ruleState(loopAdmission).openTurn === turn) {
      await loop.log.append(turnEnd(loop, { turn, reason: "error", error: loggedError(failure) }));
    }
    throw failure;
  }
}
