import { emptyRequestFold, foldRequestEvent, stepEndEvent, type PriceOf } from "dsh-agent";
import { requestHeaderEvent } from "dsh-header";
import type { LogEvent } from "dsh-log";
import { messageWeight, toolsWeight } from "../weights.js";

/** What the reference gives an event: real token shares by kind, requests, output tokens and dollars. */
export interface ReferenceRow {
  tokens: [number, number, number, number];
  requests: number;
  outputTokens: number;
  usd: number;
}

/**
 * The cost per event computed the plain way: every part of every request visited, its overlap with
 * each kind's stretch of the prompt taken directly. Quadratic, and written apart from the package's
 * code, so the two can be compared.
 */
export function referenceCosts(events: Iterable<LogEvent>, priceOf: PriceOf): Map<number, ReferenceRow> {
  const rows = new Map<number, ReferenceRow>();
  const row = (seq: number) => {
    let found = rows.get(seq);
    if (found === undefined) rows.set(seq, (found = { tokens: [0, 0, 0, 0], requests: 0, outputTokens: 0, usd: 0 }));
    return found;
  };
  let fold = emptyRequestFold;
  let tools: { seq: number; weight: number; listed: string } | undefined;
  const pending = new Map<string, { parts: { seq: number; weight: number }[]; provider: string; model: string; time: number; answer?: number; dispatch: number }>();
  for (const event of events) {
    fold = foldRequestEvent(fold, event);
    if (requestHeaderEvent.is(event)) {
      const listed = JSON.stringify(event.data.header.tools ?? null);
      if (listed !== tools?.listed) tools = event.data.header.tools === undefined ? { seq: -1, weight: 0, listed } : { seq: event.seq, weight: toolsWeight(event.data.header.tools), listed };
    }
    if (fold.dispatch !== undefined) {
      const parts = tools !== undefined && tools.seq >= 0 ? [{ seq: tools.seq, weight: tools.weight }] : [];
      const { nodes } = fold.surface.state;
      for (let index = 0; index < nodes.length; index++) parts.push({ seq: nodes.at(index)!.seq, weight: messageWeight(fold.surface.messages.at(index)!) });
      const { provider, model } = fold.dispatch.snapshot.header.config;
      pending.set(`${fold.dispatch.turn}.${fold.dispatch.step}`, { parts, provider, model, time: event.time, dispatch: event.seq });
      continue;
    }
    if (event.type === "assistant/message") for (const step of pending.values()) step.answer ??= event.seq;
    if (!stepEndEvent.is(event)) continue;
    const step = pending.get(`${event.data.turn}.${event.data.step}`);
    pending.delete(`${event.data.turn}.${event.data.step}`);
    const usage = event.data.usage;
    if (step === undefined || usage === undefined) continue;
    const hour = usage.cacheWrite1hTokens ?? 0;
    const kinds = [usage.cacheReadTokens, hour, usage.cacheWriteTokens - hour, Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens)];
    const price = priceOf(step.provider, step.model);
    const rates = price === undefined ? [0, 0, 0, 0] : [price.cacheRead, price.cacheWrite1h ?? price.cacheWrite5m ?? price.input, price.cacheWrite5m ?? price.input, price.input].map((rate) => rate / 1e6);
    const total = kinds.reduce((a, b) => a + b, 0);
    const weight = step.parts.reduce((sum, part) => sum + part.weight, 0);
    const parts = weight === 0 ? [{ seq: step.dispatch, weight: 1 }] : step.parts;
    const perWeight = total / (weight === 0 ? 1 : weight);
    let at = 0;
    for (const part of parts) {
      const target = row(part.seq);
      target.requests += weight === 0 ? 0 : 1;
      let kindStart = 0;
      kinds.forEach((amount, kind) => {
        const kindEnd = kindStart + amount / perWeight;
        const overlap = Math.max(0, Math.min(at + part.weight, kindEnd) - Math.max(at, kindStart));
        target.tokens[kind]! += overlap * perWeight;
        target.usd += overlap * perWeight * rates[kind]!;
        kindStart = kindEnd;
      });
      at += part.weight;
    }
    const answer = row(step.answer ?? event.seq);
    answer.outputTokens += usage.outputTokens;
    answer.usd += price === undefined ? 0 : (usage.outputTokens * price.output) / 1e6;
  }
  return rows;
}
