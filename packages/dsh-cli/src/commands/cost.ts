import { parseArgs } from "node:util";
import { requestDispatchEvent, stepEndEvent, type CostTotals, type StepCost } from "dsh-agent";
import { costReport, describePrice, type CostReport, type EventCost, type ForecastCheck } from "dsh-cost-report";
import { requestHeaderEvent } from "dsh-header";
import type { LogEvent } from "dsh-log";
import { uncachedInputTokens, type ModelPrice } from "dsh-llm";
import { isSurfaceEvent } from "dsh-surface";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { priceOf, readPricesFile } from "../prices.js";
import { sessionRef } from "../store.js";
import { streamSessionRef } from "../streamed.js";

export const COST_USAGE = "dsh cost LOG [--by-event] [--json] [--prices FILE] [--store URL]";

/** Dollars as people read them: cents for large sums, more digits for small ones. */
export function formatUsd(value: number | undefined): string {
  if (value === undefined) return "no price";
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(6).replace(/0+$/, "").replace(/\.$/, ".0")}`;
}

/** One step as JSON: its tokens (the uncached input apart) and its cost, `null` without a price. */
function stepJson(step: StepCost) {
  const { turn, step: index, provider, model, time, usage, cost } = step;
  return { turn, step: index, provider, model, time: new Date(time).toISOString(), ...tokensOf(usage), costUsd: cost?.totalUsd ?? null, cost: cost ?? null };
}

function tokensOf(usage: Pick<CostTotals, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">) {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = usage;
  return { inputTokens, uncachedInputTokens: uncachedInputTokens(usage), cacheReadTokens, cacheWriteTokens, outputTokens };
}

function totalsJson(totals: CostTotals) {
  return { ...tokensOf(totals), costUsd: totals.cost.totalUsd, cost: totals.cost, unpricedSteps: totals.unpricedSteps };
}

function row(label: string, model: string, totals: Pick<CostTotals, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">, cost: string): string {
  const number = (value: number, width: number) => String(value).padStart(width);
  return [label.padEnd(9), model.padEnd(20), number(uncachedInputTokens(totals), 9), number(totals.cacheReadTokens, 11), number(totals.cacheWriteTokens, 12), number(totals.outputTokens, 8), ` ${cost}`].join(" ").trimEnd();
}

function report({ steps, turns, total, forecasts }: CostReport, prices: ReadonlyMap<string, ModelPrice>): string {
  const lines = [["turn.step".padEnd(9), "model".padEnd(20), "uncached".padStart(9), "cache-read".padStart(11), "cache-write".padStart(12), "output".padStart(8), " cost"].join(" ")];
  // A turn's steps lie together in the log, in the order of the turns: one walk prints them all.
  let at = 0;
  for (const turn of turns) {
    for (; at < steps.length && steps[at]!.turn === turn.turn; at++) {
      const step = steps[at]!;
      lines.push(row(`${step.turn}.${step.step}`, step.model, step.usage, formatUsd(step.cost?.totalUsd)));
    }
    lines.push(row(`turn ${turn.turn}`, "", turn, `${formatUsd(turn.cost.totalUsd)}${turn.unpricedSteps > 0 ? ` (+${turn.unpricedSteps} step(s) without a price)` : ""}`));
  }
  lines.push(
    "",
    `total: ${steps.length} step(s) with usage; ${total.inputTokens} prompt tokens (${uncachedInputTokens(total)} uncached, ${total.cacheReadTokens} read from the cache, ${total.cacheWriteTokens} written to it), ` +
      `${total.outputTokens} output tokens; ${formatUsd(total.cost.totalUsd)}${total.unpricedSteps > 0 ? `, not counting ${total.unpricedSteps} step(s) whose model has no price (--prices FILE gives one)` : ""}.`,
  );
  for (const [model, price] of prices) lines.push(`price ${describePrice(model, price)}`);
  for (const check of forecasts) lines.push(forecastLine(check));
  return `${lines.join("\n")}\n`;
}

/** A compaction forecast against what happened, in one line. */
function forecastLine(check: ForecastCheck): string {
  const plans = check.plans.map((plan) => `${plan.plan} ${formatUsd(plan.forecastUsd)}`).join(", ");
  const horizon = check.plans[0]?.requests ?? 0;
  const followed = check.requests === 0 ? "no request followed yet" : `over the ${check.requests} request(s) that followed${check.compacted ? ", compaction included" : ""}: forecast ${formatUsd(check.forecastUsd)}, actual ${formatUsd(check.actualUsd)}`;
  return `compaction forecast at seq ${check.seq}: chose ${check.choice} (${plans} over ${horizon} request(s)); ${followed}`;
}

/** The per-event table: what each logged event put into requests and what it cost, then the check that the rows add up. */
function eventReport(events: readonly EventCost[], total: CostTotals): string {
  const number = (value: number, width: number) => String(value).padStart(width);
  const lines = [["seq".padStart(6), "event".padEnd(24), "requests".padStart(8), "uncached".padStart(9), "cache-read".padStart(11), "cache-write".padStart(12), "output".padStart(8), " cost"].join(" ")];
  let usd = 0;
  for (const event of events) {
    usd += event.cost.totalUsd;
    const written = event.cacheWrite5mTokens + event.cacheWrite1hTokens;
    lines.push([number(event.seq, 6), event.label.slice(0, 24).padEnd(24), number(event.requests, 8), number(event.uncachedTokens, 9), number(event.cacheReadTokens, 11), number(written, 12), number(event.outputTokens, 8), ` ${formatUsd(event.cost.totalUsd)}`].join(" "));
  }
  lines.push("", `${events.length} event(s); their tokens add up to the steps' ${total.inputTokens} prompt and ${total.outputTokens} output tokens, their cost to ${formatUsd(usd)}.`);
  return `${lines.join("\n")}\n`;
}

/** One event as JSON. */
function eventJson(event: EventCost) {
  return { ...event, costUsd: event.cost.totalUsd };
}

/** `dsh cost`: tokens and cost per step, per turn and in total, from the usage the log recorded, cache reads and writes apart. */
export async function costCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, "by-event": { type: "boolean", default: false }, prices: { type: "string" }, store: { type: "string" } },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${COST_USAGE}`, EXIT.usage);
  const file = values.prices === undefined ? undefined : await readPricesFile(values.prices, io);
  // Streamed: only the events a cost depends on (headers, dispatches, step ends, and by event the messages) are kept.
  const byEvent = values["by-event"];
  const kept: LogEvent[] = [];
  await streamSessionRef(sessionRef(reference, values.store, io), io, (batch) => {
    for (const event of batch) if (requestHeaderEvent.is(event) || requestDispatchEvent.is(event) || stepEndEvent.is(event) || event.type.startsWith("compaction/") || (byEvent && isSurfaceEvent(event))) kept.push(event);
  });
  const lookup = priceOf(file);
  const used = new Map<string, ModelPrice>();
  const prices = (provider: string, model: string) => {
    const price = lookup(provider, model);
    if (price !== undefined) used.set(model, price);
    return price;
  };
  const costs = costReport(kept, { prices, byEvent });
  if (values.json) {
    const turns = costs.turns.map(({ turn, ...totals }) => ({ turn, ...totalsJson(totals) }));
    const events = costs.events === undefined ? {} : { events: costs.events.map(eventJson) };
    io.stdout.write(`${JSON.stringify({ steps: costs.steps.map(stepJson), turns, total: totalsJson(costs.total), ...events, forecasts: costs.forecasts, prices: Object.fromEntries(used) })}\n`);
  } else {
    io.stdout.write(costs.events === undefined ? report(costs, used) : eventReport(costs.events, costs.total));
  }
  return EXIT.ok;
}
