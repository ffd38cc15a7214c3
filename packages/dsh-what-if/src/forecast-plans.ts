import type { CompactionPlan } from "dsh-agent";

/** How the session has been going, measured from its logged usage: what a forecast carries forward. */
export interface SessionPace {
  /** The prompt tokens of the latest request. */
  readonly promptTokens: number;
  /** How many prompt tokens each request adds to the one before (its answer, tool results, the next message). */
  readonly growthPerRequest: number;
  readonly outputPerRequest: number;
  /** How many requests a turn makes (at least 1). */
  readonly requestsPerTurn: number;
  /** How many of the next requests come before the next turn starts (0: the next request starts one). */
  readonly requestsBeforeTurn: number;
  /** Whether the pause between turns outlasts the cache, so every turn starts cold. */
  readonly coldTurnStarts: boolean;
}

/** The prompt a compaction would rewrite, in tokens: what stays before the summarized range, the range, and the summary that replaces it. */
export interface CompactionShape {
  readonly prefixTokens: number;
  readonly rangeTokens: number;
  readonly summaryTokens: number;
}

/** What one token of each kind costs (dollars): a prompt token sent uncached, read, written to the cache; an output token. */
export interface PlanRates {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
}

/** One plan priced: the summary call of the compaction it plans, and each forecast request (a compaction the window forces counted in the request it precedes). */
export interface PricedPlan {
  readonly plan: CompactionPlan;
  readonly summaryUsd: number;
  readonly requestsUsd: readonly number[];
  readonly idleMs?: number;
}

/** How far and within what the plans are forecast. */
export interface PlanLimits {
  readonly requests: number;
  readonly contextWindow: number;
  /** The cache's lifetime, where the provider's cache model has one: offers `at-expiry` when turns start cold. */
  readonly idleMs?: number | undefined;
}

/** The cost of the summary call: the range read fresh, the summary written out. */
function summaryCost(shape: CompactionShape, rates: PlanRates): number {
  return shape.rangeTokens * rates.input + shape.summaryTokens * rates.output;
}

/**
 * Each request from now on under one plan: the prompt grows at the session's pace; a request reads
 * what the cache holds of it (all of the last prompt while warm, nothing at a cold turn start) and
 * writes the rest; `compactAt` (a request index, 0 = before the next) replaces the range by the
 * summary, keeping only the prefix before it cached. A prompt that would overflow the window is
 * compacted there, its summary call counted in that request.
 */
function walk(pace: SessionPace, shape: CompactionShape, rates: PlanRates, limits: PlanLimits, compactAt: number | undefined): { summaryUsd: number; requestsUsd: number[] } {
  let prompt = pace.promptTokens;
  let warm = pace.promptTokens;
  let summaryUsd = 0;
  const requestsUsd: number[] = [];
  const turn = Math.max(1, Math.round(pace.requestsPerTurn));
  for (let i = 0; i < limits.requests; i++) {
    let extra = 0;
    const overflows = prompt + pace.growthPerRequest + pace.outputPerRequest > limits.contextWindow;
    if (i === compactAt || overflows) {
      if (i === compactAt) summaryUsd = summaryCost(shape, rates);
      else extra = summaryCost(shape, rates);
      prompt = Math.max(shape.prefixTokens, prompt - shape.rangeTokens + shape.summaryTokens);
      warm = Math.min(warm, shape.prefixTokens);
    }
    const startsTurn = i >= pace.requestsBeforeTurn && (i - pace.requestsBeforeTurn) % turn === 0;
    if (startsTurn && pace.coldTurnStarts) warm = 0;
    prompt += pace.growthPerRequest;
    const read = Math.min(warm, prompt);
    requestsUsd.push(extra + read * rates.cacheRead + (prompt - read) * rates.cacheWrite + pace.outputPerRequest * rates.output);
    warm = prompt;
  }
  return { summaryUsd, requestsUsd };
}

/**
 * Prices compacting now, at the next cold turn start (only when turns start cold, the cache having
 * expired over the pause), or not at all, over the next `limits.requests` requests at the session's
 * pace. A pure function of its inputs.
 */
export function pricePlans(pace: SessionPace, shape: CompactionShape, rates: PlanRates, limits: PlanLimits): PricedPlan[] {
  const plans: PricedPlan[] = [{ plan: "now", ...walk(pace, shape, rates, limits, 0) }];
  if (limits.idleMs !== undefined && pace.coldTurnStarts && pace.requestsBeforeTurn > 0 && pace.requestsBeforeTurn < limits.requests) {
    plans.push({ plan: "at-expiry", ...walk(pace, shape, rates, limits, pace.requestsBeforeTurn), idleMs: limits.idleMs });
  }
  plans.push({ plan: "never", ...walk(pace, shape, rates, limits, undefined) });
  return plans;
}

/** A plan's forecast total: its summary call and every request. */
export function planTotal(plan: Pick<PricedPlan, "summaryUsd" | "requestsUsd">): number {
  return plan.requestsUsd.reduce((sum, usd) => sum + usd, plan.summaryUsd);
}

/** The cheapest plan; on a tie the least disruptive (not at all, then at expiry, then now). */
export function cheapestPlan(plans: readonly PricedPlan[]): CompactionPlan {
  const order: CompactionPlan[] = ["never", "at-expiry", "now"];
  return [...plans].sort((a, b) => planTotal(a) - planTotal(b) || order.indexOf(a.plan) - order.indexOf(b.plan))[0]!.plan;
}
