import { emptyRequestFold, foldRequestEvent, stepEndEvent, type PriceOf } from "dsh-agent";
import { requestHeaderEvent } from "dsh-header";
import { tokenRates, type Message, type ModelPrice, type TokenUsage, type UsageCost } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { surfaceNodeLabel, type AppendList, type SurfaceNode } from "dsh-surface";
import { billRequest, type Lead, type PromptBilling } from "./bill.js";
import { Channel, ListedParts, SurfaceParts, addTo, type Totals } from "./parts.js";
import { roundToTotal } from "./rounding.js";
import { toolsWeight } from "./weights.js";

/** What one logged event cost: the prompt tokens it put into requests, billed as they were, and the output tokens of an answer. */
export interface EventCost {
  /** The event's seq: a message's, or for the tools the `request/header` that listed them. */
  readonly seq: number;
  /** Its type: `system/message`, `user/message`, `assistant/message`, `tool/result`, `request/header` (the tools), `step/end` (an answer that logged no message) or `request/dispatch` (a request with no part). */
  readonly type: string;
  /** What it is, for a person: `system prompt`, `tools (3)`, `user`, `assistant`, `tool result read_file`, `compaction summary`. */
  readonly label: string;
  /** How many requests' prompts held it. */
  readonly requests: number;
  /** Its prompt tokens billed in full: the first time it was sent with no cache write, and every time after a break. */
  readonly uncachedTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  /** For an answer, the output tokens of the step that wrote it. */
  readonly outputTokens: number;
  /** Its cost over the steps whose model has a price. */
  readonly cost: UsageCost;
}

/** A dispatched step waiting for its usage: its prompt as it was, its price and time, and its answer once logged. */
interface Pending {
  readonly nodes: AppendList<SurfaceNode>;
  readonly messages: AppendList<Message>;
  readonly generation: object;
  readonly lead: Lead | undefined;
  readonly price: ModelPrice | undefined;
  readonly time: number;
  readonly dispatchSeq: number;
  answer?: number;
}

function labelOf(message: Message): string {
  return message.source === "compaction" ? "compaction summary" : surfaceNodeLabel(message);
}

/** A step's prompt tokens by how they were billed, and each kind's price per token at its dispatch time. */
function billingOf(usage: TokenUsage, price: ModelPrice | undefined, time: number): PromptBilling {
  const write1h = usage.cacheWrite1hTokens ?? 0;
  const tokens = [usage.cacheReadTokens, write1h, usage.cacheWriteTokens - write1h, Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens)] as const;
  if (price === undefined) return { tokens, usdPerToken: [0, 0, 0, 0] };
  const rates = tokenRates(price, time);
  return { tokens, usdPerToken: [rates.cacheRead, rates.cacheWrite1h, rates.cacheWrite5m, rates.input] };
}

/**
 * What every model-visible event of `events` cost: each request's reported prompt tokens shared
 * among its parts (tools, then messages, in prompt order) by their weights and billed as they lie
 * (read from the start, then written, then in full), and each step's output tokens to its answer.
 * Rows come in seq order; their tokens are whole and add up, kind by kind, exactly to the usage the
 * steps reported, and their costs to the steps' costs at `priceOf`. Linear in the log's events.
 */
export function eventCosts(events: Iterable<LogEvent>, priceOf: PriceOf): EventCost[] {
  const totals: Totals = new Map();
  const kinds = new Map<number, { readonly type: string; readonly label: string }>();
  const exact = [0, 0, 0, 0];
  const parts = new SurfaceParts(totals);
  const pending = new Map<string, Pending>();
  let fold = emptyRequestFold;
  let lead: Lead | undefined;
  let tools: string | undefined;
  // Follows the surface and names the parts laid out now: a surface that only grows names each part once.
  const follow = ({ state: { nodes }, messages }: typeof fold.surface) => {
    for (let index = parts.follow(nodes, messages); index < nodes.length; index++) {
      const node = nodes.at(index)!;
      kinds.set(node.seq, { type: node.type, label: labelOf(messages.at(index)!) });
    }
  };
  for (const event of events) {
    fold = foldRequestEvent(fold, event);
    if (requestHeaderEvent.is(event)) {
      const { header } = event.data;
      const listed = JSON.stringify(header.tools);
      if (listed !== tools) {
        tools = listed;
        lead = header.tools === undefined ? undefined : { seq: event.seq, weight: toolsWeight(header.tools) };
        if (header.tools !== undefined) kinds.set(event.seq, { type: event.type, label: `tools (${header.tools.length})` });
      }
    }
    const { dispatch, surface } = fold;
    if (dispatch !== undefined) {
      follow(surface);
      const { provider, model } = dispatch.snapshot.header.config;
      const price = priceOf(provider, model);
      pending.set(`${dispatch.turn}.${dispatch.step}`, { nodes: surface.state.nodes, messages: surface.messages, generation: parts.generation, lead, price, time: event.time, dispatchSeq: event.seq });
      continue;
    }
    if (event.type === "assistant/message") {
      for (const step of pending.values()) step.answer ??= event.seq;
      continue;
    }
    if (!stepEndEvent.is(event)) continue;
    const key = `${event.data.turn}.${event.data.step}`;
    const step = pending.get(key);
    pending.delete(key);
    const usage = event.data.usage;
    if (step === undefined || usage === undefined) continue;
    const billing = billingOf(usage, step.price, step.time);
    billing.tokens.forEach((amount, kind) => (exact[kind]! += amount));
    follow(surface);
    const layout = step.generation === parts.generation ? parts : new ListedParts(totals, step.nodes, step.messages);
    if (step.nodes.length === 0 && step.lead === undefined) kinds.set(step.dispatchSeq, { type: "request/dispatch", label: "request" });
    billRequest(layout, step.nodes.length, step.lead, billing, totals, step.dispatchSeq);
    const answer = step.answer ?? event.seq;
    if (step.answer === undefined) kinds.set(event.seq, { type: event.type, label: `answer of step ${key} (no message logged)` });
    else kinds.set(answer, { type: "assistant/message", label: "assistant" });
    addTo(totals, answer, Channel.OutputTokens, usage.outputTokens);
    if (step.price !== undefined) addTo(totals, answer, Channel.OutputUsd, usage.outputTokens * tokenRates(step.price, step.time).output);
  }
  parts.settle();
  return rowsOf(totals, kinds, exact);
}

/** The rows of the totals, in seq order, their billed tokens rounded to whole ones that add up to `exact` kind by kind. */
function rowsOf(totals: Totals, kinds: ReadonlyMap<number, { readonly type: string; readonly label: string }>, exact: readonly number[]): EventCost[] {
  const seqs = [...totals.keys()].sort((a, b) => a - b);
  const rounded = [Channel.Read, Channel.Write1h, Channel.Write5m, Channel.Uncached].map((channel, kind) =>
    roundToTotal(
      seqs.map((seq) => totals.get(seq)![channel]!),
      exact[kind]!,
    ),
  );
  return seqs.map((seq, index) => {
    const row = totals.get(seq)!;
    const [inputUsd, cacheReadUsd, cacheWriteUsd, outputUsd] = [row[Channel.InputUsd]!, row[Channel.ReadUsd]!, row[Channel.WriteUsd]!, row[Channel.OutputUsd]!];
    return {
      seq,
      ...kinds.get(seq)!,
      requests: Math.round(row[Channel.Requests]!),
      uncachedTokens: rounded[3]![index]!,
      cacheReadTokens: rounded[0]![index]!,
      cacheWrite5mTokens: rounded[2]![index]!,
      cacheWrite1hTokens: rounded[1]![index]!,
      outputTokens: row[Channel.OutputTokens]!,
      cost: { inputUsd, cacheReadUsd, cacheWriteUsd, outputUsd, totalUsd: inputUsd + cacheReadUsd + cacheWriteUsd + outputUsd },
    };
  });
}
