import { stepEndEvent, turnEndEvent, turnStartEvent, type CompactionForecaster, type CompactionForecastInput, type PriceOf } from "dsh-agent";
import { foldRequestHeader, type RequestHeaderSnapshot } from "dsh-header";
import { tokenRates, type Message } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { CACHE_TTL_MS, takesBreakpoints } from "dsh-simulator";
import { wireApiOf } from "dsh-wire";
import { cheapestPlan, pricePlans, type CompactionShape, type PlanRates, type SessionPace } from "./forecast-plans.js";

/** How far a compaction forecast looks, and the prices it uses. */
export interface CompactionForecastOptions {
  /** The price of each provider and model (for example `(provider, model) => adapter.price?.(model)`); a model without one is not forecast. */
  readonly prices: PriceOf;
  /** How many turns ahead, at the session's pace (default 4). */
  readonly turns?: number;
  /** How many of the latest requests the pace is measured over (default 8). */
  readonly window?: number;
}

/** The lifetime of a Messages API request's explicit cache, asked for by the request or its adapter; `undefined` for another API, or an Anthropic-format endpoint that caches automatically (DeepSeek's). */
function explicitCacheTtl(snapshot: RequestHeaderSnapshot): "5m" | "1h" | undefined {
  if (wireApiOf({ snapshot }).api !== "messages" || snapshot.header.wire?.automaticCache === true) return undefined;
  return snapshot.header.config.cacheTtl ?? snapshot.header.adapterDefaults?.cacheTtl ?? "5m";
}

/** How long the provider's cache keeps a prefix after its last use, where the simulator models it: the Messages API's 5 minutes or hour, GPT-5.6's 30 minutes. */
export function cacheLifetimeMs(snapshot: RequestHeaderSnapshot): number | undefined {
  const ttl = explicitCacheTtl(snapshot);
  if (ttl !== undefined) return CACHE_TTL_MS[ttl];
  if (wireApiOf({ snapshot }).api === "responses" && takesBreakpoints(snapshot.header.config.model)) return 30 * 60_000;
  return undefined;
}

/** A step that logged usage: its turn, when it ended, and its prompt and output tokens. */
export interface LoggedStep {
  readonly turn: number;
  readonly time: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What a forecast reads of a session's turns: its steps with usage, when each turn started, and the turn still open. */
export interface LoggedTurns {
  readonly steps: readonly LoggedStep[];
  readonly turnStarts: ReadonlyMap<number, number>;
  readonly openTurn: number | undefined;
}

/** The steps and turns of a log, as {@link paceOf} reads them. */
export function loggedTurns(log: EventLog): LoggedTurns {
  const steps: LoggedStep[] = [];
  const turnStarts = new Map<number, number>();
  let openTurn: number | undefined;
  for (const event of log) {
    if (turnStartEvent.is(event)) {
      turnStarts.set(event.data.turn, event.time);
      openTurn = event.data.turn;
    } else if (turnEndEvent.is(event)) {
      openTurn = undefined;
    } else if (stepEndEvent.is(event) && event.data.usage !== undefined) {
      steps.push({ turn: event.data.turn, time: event.time, inputTokens: event.data.usage.inputTokens, outputTokens: event.data.usage.outputTokens });
    }
  }
  return { steps, turnStarts, openTurn };
}

/** The middle value (the upper one of an even count), or `undefined` for none. */
function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The pace a forecast carries forward, over the last `window` requests: the latest prompt, what each
 * request added to the one before (drops, such as a compaction's, left out) and answered, how many
 * requests a finished turn made, how many the open turn has left, and whether the median pause
 * before a turn outlasts the cache's lifetime `idleMs`. `undefined` before any step logged usage.
 */
export function paceOf(turns: LoggedTurns, window: number, idleMs: number | undefined): SessionPace | undefined {
  const { steps, turnStarts, openTurn } = turns;
  const last = steps.at(-1);
  if (last === undefined) return undefined;
  const recent = steps.slice(-window - 1);
  const growth = recent.slice(1).map((step, i) => step.inputTokens - recent[i]!.inputTokens).filter((added) => added > 0);
  const perTurn = new Map<number, number>();
  for (const step of steps) perTurn.set(step.turn, (perTurn.get(step.turn) ?? 0) + 1);
  const finished = [...perTurn].filter(([turn]) => turn !== openTurn).map(([, count]) => count);
  const requestsPerTurn = finished.length === 0 ? perTurn.get(last.turn)! : mean(finished);
  const doneThisTurn = openTurn === undefined ? 0 : (perTurn.get(openTurn) ?? 0);
  // Between turns, or before the open turn's first request, the next request starts a turn.
  const requestsBeforeTurn = doneThisTurn === 0 ? 0 : Math.max(1, Math.round(requestsPerTurn) - doneThisTurn);
  const gaps: number[] = [];
  for (let i = 1; i < steps.length; i++) {
    const started = turnStarts.get(steps[i]!.turn);
    if (steps[i]!.turn !== steps[i - 1]!.turn && started !== undefined) gaps.push(started - steps[i - 1]!.time);
  }
  const pause = median(gaps);
  return {
    promptTokens: last.inputTokens,
    growthPerRequest: growth.length === 0 ? 0 : mean(growth),
    outputPerRequest: mean(recent.map((step) => step.outputTokens)),
    requestsPerTurn,
    requestsBeforeTurn,
    coldTurnStarts: idleMs !== undefined && pause !== undefined && pause >= idleMs,
  };
}

/** The session's pace from its logged usage ({@link paceOf} of {@link loggedTurns}). */
export function sessionPace(log: EventLog, window: number, idleMs: number | undefined): SessionPace | undefined {
  return paceOf(loggedTurns(log), window, idleMs);
}

/** The prompt's parts in tokens, shared out from the measured total by their characters (the tools count with the prefix). */
export function compactionShape(input: Pick<CompactionForecastInput, "messages" | "range" | "summaryMaxTokens">, tools: unknown, promptTokens: number): CompactionShape {
  const size = (messages: readonly Message[]) => messages.reduce((sum, message) => sum + JSON.stringify(message).length, 0);
  const { messages, range } = input;
  const prefix = size(messages.slice(0, range.startIndex)) + (tools === undefined ? 0 : JSON.stringify(tools).length);
  const summarized = size(messages.slice(range.startIndex, range.endIndex + 1));
  const all = prefix + summarized + size(messages.slice(range.endIndex + 1));
  const tokensPerChar = all === 0 ? 0 : promptTokens / all;
  return { prefixTokens: Math.round(prefix * tokensPerChar), rangeTokens: Math.round(summarized * tokensPerChar), summaryTokens: input.summaryMaxTokens };
}

/**
 * A compaction forecaster for `CompactionOptions.forecast` of `dsh-agent`: it prices compacting now,
 * when the cache would expire anyway, or not at all, over the next turns at the session's pace
 * (measured from its logged usage), under the session's prices and the provider's cache rules
 * (what a warm prefix reads, what a rewrite writes, the cache's lifetime), and chooses the cheapest.
 * The answer is a function of the log and the prices alone.
 */
export function compactionForecast(options: CompactionForecastOptions): CompactionForecaster {
  return async (input) => {
    const snapshot = foldRequestHeader(input.log);
    if (snapshot === undefined) return undefined;
    const { provider, model } = snapshot.header.config;
    const price = options.prices(provider, model);
    if (price === undefined) return undefined;
    const idleMs = cacheLifetimeMs(snapshot);
    const pace = sessionPace(input.log, options.window ?? 8, idleMs);
    if (pace === undefined) return undefined;
    // Priced at the time of the latest logged event (peak hours), so the forecast is a function of the log.
    const rates = tokenRates(price, input.log.get(input.log.length - 1)!.time);
    const write = explicitCacheTtl(snapshot) === "1h" ? rates.cacheWrite1h : rates.cacheWrite5m;
    const planRates: PlanRates = { input: rates.input, cacheRead: rates.cacheRead, cacheWrite: write, output: rates.output };
    const requests = Math.max(1, Math.ceil((options.turns ?? 4) * pace.requestsPerTurn));
    const plans = pricePlans(pace, compactionShape(input, snapshot.header.tools, pace.promptTokens), planRates, { requests, contextWindow: input.contextWindow, idleMs });
    return { plans: plans.map((plan) => ({ ...plan, requestsUsd: [...plan.requestsUsd] })), choice: cheapestPlan(plans) };
  };
}
