import { parseArgs } from "node:util";
import { childLinks, costTotals, requestDispatchEvent, stepEndEvent, type ChildLink, type CostTotals, type PriceOf, type StepCost } from "dsh-agent";
import { costReport, describeForecast, describePrice, formatUsd, treeCost, type CostReport, type EventCost, type SessionCost } from "dsh-cost-report";
import { requestHeaderEvent } from "dsh-header";
import type { LogEvent } from "dsh-log";
import { uncachedInputTokens, type ModelPrice } from "dsh-llm";
import { isSurfaceEvent, toolResultEvent } from "dsh-surface";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { priceOf, readPricesFile } from "../prices.js";
import { followableStore, sessionRef, type SessionRef } from "../store.js";
import { streamSessionRef } from "../streamed.js";

export const COST_USAGE = "dsh cost LOG [--by-event] [--json] [--prices FILE] [--store URL]";

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
  for (const check of forecasts) lines.push(describeForecast(check));
  return `${lines.join("\n")}\n`;
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

/** The subagent sessions a session links (and theirs), each priced, read from the session's store (a JSONL file's directory). */
async function subagentCosts(ref: SessionRef, sessionId: string, links: readonly ChildLink[], prices: PriceOf, io: CliIo): Promise<SessionCost[]> {
  if (links.length === 0) return [];
  const store = await followableStore(ref, io);
  try {
    const sessions: SessionCost[] = [];
    for (const link of links) {
      const [own, ...below] = (await treeCost(store, link.child.sessionId, { prices })).sessions;
      sessions.push({ ...own!, parent: { sessionId, seq: link.seq } }, ...below);
    }
    return sessions;
  } finally {
    await store.close();
  }
}

/** A session's steps and its subagents' added up. */
function treeTotal(costs: CostReport, subagents: readonly SessionCost[]): CostTotals {
  return costTotals([...costs.steps, ...subagents.flatMap((session) => session.report.steps)]);
}

/** A line per subagent session, then the whole tree's total; nothing for a session without subagents. */
function subagentLines(costs: CostReport, subagents: readonly SessionCost[]): string {
  if (subagents.length === 0) return "";
  const line = (totals: CostTotals) => `${totals.inputTokens} prompt tokens (${totals.cacheReadTokens} read from the cache), ${totals.outputTokens} output tokens; ${formatUsd(totals.cost.totalUsd)}${totals.unpricedSteps > 0 ? ` (+${totals.unpricedSteps} step(s) without a price)` : ""}`;
  const lines = subagents.map(({ sessionId, parent, report }) => `subagent ${sessionId} (result at seq ${parent!.seq} of ${parent!.sessionId}): ${report.steps.length} step(s), ${line(report.total)}`);
  return `${[...lines, `with its ${subagents.length} subagent session(s): ${line(treeTotal(costs, subagents))}`].join("\n")}\n`;
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
  const links: LogEvent[] = [];
  const ref = sessionRef(reference, values.store, io);
  const { info } = await streamSessionRef(ref, io, (batch) => {
    for (const event of batch) {
      if (requestHeaderEvent.is(event) || requestDispatchEvent.is(event) || stepEndEvent.is(event) || event.type.startsWith("compaction/") || (byEvent && isSurfaceEvent(event))) kept.push(event);
      if (toolResultEvent.is(event) && event.data.child !== undefined) links.push(event);
    }
  });
  const lookup = priceOf(file);
  const used = new Map<string, ModelPrice>();
  const prices = (provider: string, model: string) => {
    const price = lookup(provider, model);
    if (price !== undefined) used.set(model, price);
    return price;
  };
  const costs = costReport(kept, { prices, byEvent });
  const subagents = await subagentCosts(ref, info.sessionId, childLinks(links), prices, io);
  if (values.json) {
    const turns = costs.turns.map(({ turn, ...totals }) => ({ turn, ...totalsJson(totals) }));
    const events = costs.events === undefined ? {} : { events: costs.events.map(eventJson) };
    const tree = subagents.length === 0 ? {} : { subagents: subagents.map(({ sessionId, parent, report }) => ({ sessionId, parent, total: totalsJson(report.total) })), treeTotal: totalsJson(treeTotal(costs, subagents)) };
    io.stdout.write(`${JSON.stringify({ steps: costs.steps.map(stepJson), turns, total: totalsJson(costs.total), ...events, forecasts: costs.forecasts, ...tree, prices: Object.fromEntries(used) })}\n`);
  } else {
    io.stdout.write(costs.events === undefined ? report(costs, used) : eventReport(costs.events, costs.total));
    io.stdout.write(subagentLines(costs, subagents));
  }
  return EXIT.ok;
}
