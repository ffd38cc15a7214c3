import { compactionForecasts, type ForecastCheck } from "./forecasts.js";
import { costTotals, stepCosts, type CostTotals, type PriceOf, type StepCost } from "dsh-agent";
import type { LogEvent } from "dsh-log";
import { eventCosts, type EventCost } from "./event-costs.js";

/** What {@link costReport} prices a session with, and how finely. */
export interface CostReportOptions {
  /** The price of a provider's model (`runtime.price.bind(runtime)`, or a table of your own); without it nothing is priced. */
  readonly prices?: PriceOf;
  /** Whether to price every model-visible event too (the prompt, the tools, each message and tool result, each summary). */
  readonly byEvent?: boolean;
}

/** A turn's steps added up. */
export interface TurnCost extends CostTotals {
  readonly turn: number;
}

/** What a session cost: per step, per turn and in total, and with `byEvent` per logged event. */
export interface CostReport {
  readonly steps: readonly StepCost[];
  readonly turns: readonly TurnCost[];
  readonly total: CostTotals;
  /** With `byEvent`: every event that went into a request or answered one, in seq order; kind by kind, they add up to `total`. */
  readonly events?: readonly EventCost[];
  /** Every logged compaction forecast, its chosen plan's forecast beside what the requests after it cost. */
  readonly forecasts: readonly ForecastCheck[];
}

const unpriced: PriceOf = () => undefined;

/**
 * What a logged session cost, from the usage each step reported and the model its request went to:
 * tokens and dollars per step, per turn and in total, cache reads and writes apart; with `byEvent`,
 * the same tokens and dollars shared out over the events that put them there; and each compaction
 * forecast beside what followed it.
 */
export function costReport(log: Iterable<LogEvent>, options: CostReportOptions = {}): CostReport {
  const prices = options.prices ?? unpriced;
  const events = [...log];
  const steps = stepCosts(events, prices);
  const byTurn = new Map<number, StepCost[]>();
  for (const step of steps) {
    const list = byTurn.get(step.turn);
    if (list === undefined) byTurn.set(step.turn, [step]);
    else list.push(step);
  }
  const turns = [...byTurn].map(([turn, turnSteps]) => ({ turn, ...costTotals(turnSteps) }));
  return { steps, turns, total: costTotals(steps), ...(options.byEvent === true ? { events: eventCosts(events, prices) } : {}), forecasts: compactionForecasts(events, prices) };
}
