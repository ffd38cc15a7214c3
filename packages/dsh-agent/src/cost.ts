import { foldHeader, type RequestHeaderSnapshot } from "dsh-header";
import { NO_COST, addCosts, usageCost, type ModelPrice, type TokenUsage, type UsageCost } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { requestDispatchEvent, stepEndEvent } from "./events.js";

/** Where a model's price comes from: a runtime's adapters (`runtime.price.bind(runtime)`), or a table of your own. */
export type PriceOf = (provider: string, model: string) => ModelPrice | undefined;

/** What one step's request used and cost, from its `step/end` usage and the header it was sent under. */
export interface StepCost {
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  /** When the request was dispatched (epoch ms), which prices with peak hours depend on. */
  readonly time: number;
  readonly usage: TokenUsage;
  /** `undefined` when the model has no known price. */
  readonly cost: UsageCost | undefined;
}

/** Tokens and cost added up over steps. */
export interface CostTotals {
  /** Whole prompts, cached parts included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** The cost of the steps with a known price. */
  readonly cost: UsageCost;
  /** Steps whose model has no known price (their tokens are counted, their cost is not). */
  readonly unpricedSteps: number;
}

/**
 * Every step of `events` that reported usage, with the model it was sent to (the header snapshot
 * in force at its dispatch) and its cost at `priceOf`. A pure fold of the log: the live loop prices
 * a turn with it and `dsh cost` prices a recorded session with it. Compaction summary calls are not
 * steps and are not counted (their usage is logged on `compaction/summary`). `before` is the header snapshot in force before the
 * first event, when `events` is a slice of a log.
 */
export function stepCosts(events: Iterable<LogEvent>, priceOf: PriceOf, before?: RequestHeaderSnapshot): StepCost[] {
  const out: StepCost[] = [];
  let header = before;
  const dispatched = new Map<string, { readonly provider: string; readonly model: string; readonly time: number }>();
  for (const event of events) {
    header = foldHeader(header, event);
    if (requestDispatchEvent.is(event) && header !== undefined) {
      const { provider, model } = header.header.config;
      dispatched.set(`${event.data.turn}.${event.data.step}`, { provider, model, time: event.time });
    } else if (stepEndEvent.is(event) && event.data.usage !== undefined) {
      const key = `${event.data.turn}.${event.data.step}`;
      const at = dispatched.get(key);
      if (at === undefined) continue;
      dispatched.delete(key);
      const price = priceOf(at.provider, at.model);
      const usage = event.data.usage;
      out.push({ turn: event.data.turn, step: event.data.step, ...at, usage, cost: price === undefined ? undefined : usageCost(usage, price, at.time) });
    }
  }
  return out;
}

/** The totals of `steps`. */
export function costTotals(steps: readonly StepCost[]): CostTotals {
  let totals: CostTotals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cost: NO_COST, unpricedSteps: 0 };
  for (const { usage, cost } of steps) {
    totals = {
      inputTokens: totals.inputTokens + usage.inputTokens,
      outputTokens: totals.outputTokens + usage.outputTokens,
      cacheReadTokens: totals.cacheReadTokens + usage.cacheReadTokens,
      cacheWriteTokens: totals.cacheWriteTokens + usage.cacheWriteTokens,
      cost: cost === undefined ? totals.cost : addCosts(totals.cost, cost),
      unpricedSteps: totals.unpricedSteps + (cost === undefined ? 1 : 0),
    };
  }
  return totals;
}
