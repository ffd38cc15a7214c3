import { parseArgs } from "node:util";
import { costTotals, requestDispatchEvent, stepCosts, stepEndEvent, type CostTotals, type StepCost } from "dsh-agent";
import { requestHeaderEvent } from "dsh-header";
import type { LogEvent } from "dsh-log";
import { uncachedInputTokens, type ModelPrice } from "dsh-llm";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { describePrice, priceOf, readPricesFile } from "../prices.js";
import { sessionRef } from "../store.js";
import { streamSessionRef } from "../streamed.js";

export const COST_USAGE = "dsh cost LOG [--json] [--prices FILE] [--store URL]";

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

/** The steps of each turn, in order. */
function byTurn(steps: readonly StepCost[]): Map<number, StepCost[]> {
  const turns = new Map<number, StepCost[]>();
  for (const step of steps) {
    const list = turns.get(step.turn);
    if (list === undefined) turns.set(step.turn, [step]);
    else list.push(step);
  }
  return turns;
}

function row(label: string, model: string, totals: Pick<CostTotals, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">, cost: string): string {
  const number = (value: number, width: number) => String(value).padStart(width);
  return [label.padEnd(9), model.padEnd(20), number(uncachedInputTokens(totals), 9), number(totals.cacheReadTokens, 11), number(totals.cacheWriteTokens, 12), number(totals.outputTokens, 8), ` ${cost}`].join(" ").trimEnd();
}

function report(steps: readonly StepCost[], prices: ReadonlyMap<string, ModelPrice>): string {
  const lines = [["turn.step".padEnd(9), "model".padEnd(20), "uncached".padStart(9), "cache-read".padStart(11), "cache-write".padStart(12), "output".padStart(8), " cost"].join(" ")];
  for (const [turn, turnSteps] of byTurn(steps)) {
    for (const step of turnSteps) lines.push(row(`${step.turn}.${step.step}`, step.model, step.usage, formatUsd(step.cost?.totalUsd)));
    const totals = costTotals(turnSteps);
    lines.push(row(`turn ${turn}`, "", totals, `${formatUsd(totals.cost.totalUsd)}${totals.unpricedSteps > 0 ? ` (+${totals.unpricedSteps} step(s) without a price)` : ""}`));
  }
  const totals = costTotals(steps);
  lines.push(
    "",
    `total: ${steps.length} step(s) with usage; ${totals.inputTokens} prompt tokens (${uncachedInputTokens(totals)} uncached, ${totals.cacheReadTokens} read from the cache, ${totals.cacheWriteTokens} written to it), ` +
      `${totals.outputTokens} output tokens; ${formatUsd(totals.cost.totalUsd)}${totals.unpricedSteps > 0 ? `, not counting ${totals.unpricedSteps} step(s) whose model has no price (--prices FILE gives one)` : ""}.`,
  );
  for (const [model, price] of prices) lines.push(`price ${describePrice(model, price)}`);
  return `${lines.join("\n")}\n`;
}

/** `dsh cost`: tokens and cost per step, per turn and in total, from the usage the log recorded, cache reads and writes apart. */
export async function costCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, prices: { type: "string" }, store: { type: "string" } },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${COST_USAGE}`, EXIT.usage);
  const file = values.prices === undefined ? undefined : await readPricesFile(values.prices, io);
  // Streamed: only the events a cost depends on (headers, dispatches, step ends) are kept, so a log of any size fits.
  const kept: LogEvent[] = [];
  await streamSessionRef(sessionRef(reference, values.store, io), io, (batch) => {
    for (const event of batch) if (requestHeaderEvent.is(event) || requestDispatchEvent.is(event) || stepEndEvent.is(event)) kept.push(event);
  });
  const lookup = priceOf(file);
  const used = new Map<string, ModelPrice>();
  const steps = stepCosts(kept, (provider, model) => {
    const price = lookup(provider, model);
    if (price !== undefined) used.set(model, price);
    return price;
  });
  if (values.json) {
    const turns = [...byTurn(steps)].map(([turn, turnSteps]) => ({ turn, ...totalsJson(costTotals(turnSteps)) }));
    io.stdout.write(`${JSON.stringify({ steps: steps.map(stepJson), turns, total: totalsJson(costTotals(steps)), prices: Object.fromEntries(used) })}\n`);
  } else {
    io.stdout.write(report(steps, used));
  }
  return EXIT.ok;
}
