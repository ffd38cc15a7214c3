import { emptyRequestFold, foldRequestEvent, stepEndEvent, type PriceOf, type RequestFold } from "dsh-agent";
import { requestHeaderEvent, type EpochHeader } from "dsh-header";
import { NO_COST, addCosts, usageCost, type Message, type TokenUsage, type UsageCost } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { surfaceNodeLabel } from "dsh-surface";
import { apportion, billParts, type PromptBilling } from "./apportion.js";
import { messageWeight, toolsWeight } from "./weights.js";

/** What one logged event cost: the prompt tokens it put into requests, billed as they were, and the output tokens of an answer. */
export interface EventCost {
  /** The event's seq: a message's, or for the tools the `request/header` that listed them. */
  readonly seq: number;
  /** Its type: `system/message`, `user/message`, `assistant/message`, `tool/result`, `request/header` (the tools), or `step/end` (an answer that logged no message). */
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

/** A part of a prompt, or an answer, being added up. */
interface Running {
  seq: number;
  type: string;
  label: string;
  requests: number;
  uncachedTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  outputTokens: number;
  cost: UsageCost;
}

/** A dispatched step waiting for its usage: its prompt's parts in order, its model and time, and its answer once logged. */
interface Pending {
  readonly parts: readonly { readonly seq: number; readonly type: string; readonly label: string; readonly weight: number }[];
  readonly provider: string;
  readonly model: string;
  readonly time: number;
  answer?: { readonly seq: number; readonly type: string; readonly label: string };
}

function labelOf(message: Message): string {
  return message.source === "compaction" ? "compaction summary" : surfaceNodeLabel(message);
}

/**
 * A request's parts: its tools (from the header that listed them), then its messages, each with its
 * weight; a request with neither is its dispatch.
 */
function partsOf(fold: RequestFold, header: EpochHeader, toolsSeq: number | undefined, dispatchSeq: number): Pending["parts"] {
  const parts: Pending["parts"][number][] = [];
  const tools = header.tools;
  if (tools !== undefined && toolsSeq !== undefined) parts.push({ seq: toolsSeq, type: "request/header", label: `tools (${tools.length})`, weight: toolsWeight(header) });
  const { nodes } = fold.surface.state;
  const { messages } = fold.surface;
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes.at(index)!;
    const message = messages.at(index)!;
    parts.push({ seq: node.seq, type: node.type, label: labelOf(message), weight: messageWeight(message) });
  }
  return parts.length > 0 ? parts : [{ seq: dispatchSeq, type: "request/dispatch", label: "request", weight: 1 }];
}

/** A step's prompt tokens by how they were billed, from its reported usage. */
function billingOf(usage: TokenUsage): PromptBilling {
  const write1h = usage.cacheWrite1hTokens ?? 0;
  return { read: usage.cacheReadTokens, write1h, write5m: usage.cacheWriteTokens - write1h, uncached: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens) };
}

/**
 * What every model-visible event of `events` cost: each request's reported prompt tokens shared
 * among its parts (tools, then messages, in prompt order) by their weights, billed as they lie (read
 * from the start, then written, then in full), and each step's output tokens to its answer. Rows
 * come in seq order and add up, kind by kind, exactly to the usage the steps reported; their costs
 * add up to the steps' costs at `priceOf`.
 */
export function eventCosts(events: Iterable<LogEvent>, priceOf: PriceOf): EventCost[] {
  const rows = new Map<number, Running>();
  const row = (seq: number, type: string, label: string): Running => {
    let found = rows.get(seq);
    if (found === undefined) {
      found = { seq, type, label, requests: 0, uncachedTokens: 0, cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens: 0, cost: NO_COST };
      rows.set(seq, found);
    }
    return found;
  };
  const pending = new Map<string, Pending>();
  let fold = emptyRequestFold;
  let toolsSeq: number | undefined;
  let tools: string | undefined;
  for (const event of events) {
    fold = foldRequestEvent(fold, event);
    if (requestHeaderEvent.is(event)) {
      const listed = event.data.header.tools === undefined ? undefined : JSON.stringify(event.data.header.tools);
      if (listed !== tools) [tools, toolsSeq] = [listed, event.seq];
    }
    const { dispatch } = fold;
    if (dispatch !== undefined) {
      const { config } = dispatch.snapshot.header;
      pending.set(`${dispatch.turn}.${dispatch.step}`, { parts: partsOf(fold, dispatch.snapshot.header, toolsSeq, event.seq), provider: config.provider, model: config.model, time: event.time });
      continue;
    }
    if (event.type === "assistant/message") {
      for (const step of pending.values()) step.answer ??= { seq: event.seq, type: event.type, label: "assistant" };
      continue;
    }
    if (!stepEndEvent.is(event)) continue;
    const key = `${event.data.turn}.${event.data.step}`;
    const step = pending.get(key);
    pending.delete(key);
    const usage = event.data.usage;
    if (step === undefined || usage === undefined) continue;
    const price = priceOf(step.provider, step.model);
    const charge = (target: Running, tokens: PromptBilling, outputTokens: number) => {
      target.cacheReadTokens += tokens.read;
      target.cacheWrite1hTokens += tokens.write1h;
      target.cacheWrite5mTokens += tokens.write5m;
      target.uncachedTokens += tokens.uncached;
      target.outputTokens += outputTokens;
      if (price === undefined) return;
      const writes = tokens.write1h + tokens.write5m;
      const used = { inputTokens: tokens.read + writes + tokens.uncached, cacheReadTokens: tokens.read, cacheWriteTokens: writes, cacheWrite1hTokens: tokens.write1h, outputTokens };
      target.cost = addCosts(target.cost, usageCost(used, price, step.time));
    };
    const billing = billingOf(usage);
    const sizes = apportion(billing.read + billing.write1h + billing.write5m + billing.uncached, step.parts.map((part) => part.weight));
    const billed = billParts(sizes, billing);
    step.parts.forEach((part, index) => {
      const target = row(part.seq, part.type, part.label);
      target.requests++;
      charge(target, billed[index]!, 0);
    });
    const answer = step.answer ?? { seq: event.seq, type: event.type, label: `answer of step ${key} (no message logged)` };
    charge(row(answer.seq, answer.type, answer.label), { read: 0, write1h: 0, write5m: 0, uncached: 0 }, usage.outputTokens);
  }
  return [...rows.values()].sort((a, b) => a.seq - b.seq);
}
