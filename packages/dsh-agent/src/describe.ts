import { clipText } from "dsh-base";
import { requestHeaderEvent } from "dsh-header";
import type { AssistantContent } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { isSurfaceEvent, type SurfaceEvent } from "dsh-surface";
import {
  attachmentQuarantineEvent,
  compactionEndEvent,
  compactionForecastEvent,
  compactionStartEvent,
  compactionSummaryEvent,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepRejectEvent,
  stepStartEvent,
  toolApprovalEvent,
  toolIntentEvent,
  turnEndEvent,
  turnStartEvent,
} from "./events.js";
import { sessionParentEvent } from "./session-parent.js";

/** What a logged event is about, for grouping or colouring a timeline. */
export type EventKind = "turn" | "step" | "header" | "request" | "message" | "tool" | "compaction" | "trim" | "retry" | "interruption" | "other";

/** One logged event in words: its kind, how deep it sits in a timeline (0 turn, 1 step, 2 within a step) and one line of text. */
export interface EventDescription {
  readonly kind: EventKind;
  readonly depth: 0 | 1 | 2;
  readonly text: string;
}

/** How much of a text a preview looks at: a long text is not flattened whole to show 80 characters of it. */
const PREVIEW_WINDOW = 4096;

/** `text` on one line (whitespace runs as one space), clipped to `length` characters with an ellipsis. */
export function previewText(text: string, length = 80): string {
  const head = text.length > PREVIEW_WINDOW ? text.slice(0, PREVIEW_WINDOW) : text;
  const flat = head.replace(/\s+/g, " ").trim();
  return head.length === text.length || flat.length >= length ? clipText(flat, length) : `${flat}…`;
}

const quoted = (text: string, length?: number) => JSON.stringify(previewText(text, length));
const textOf = (content: readonly { readonly type: string; readonly text?: string }[]) => content.map((block) => (block.type === "text" ? (block.text ?? "") : "[image]")).join("");
const ended = (reason: string) => (reason === "interrupted" || reason === "aborted" ? "interruption" : undefined);

function assistantBlock(block: AssistantContent): string {
  switch (block.type) {
    case "tool-call":
      return `→ ${block.name} ${previewText(block.arguments, 60)}`;
    case "reasoning":
      return `(thinking ${block.text.length} chars${block.signature === undefined ? "" : ", signed"})`;
    case "redacted-reasoning":
      return "(redacted thinking)";
    case "provider-item":
      return `(${block.api} ${String(block.item.type ?? "item")})`;
    case "text":
      return quoted(block.text);
  }
}

function surfaceText(event: SurfaceEvent): string {
  const replace = event.data.replaces;
  const replaced = replace === undefined ? "" : ` (replaces the messages logged at seqs ${replace.start}..${replace.end})`;
  switch (event.type) {
    case "system/message":
      return `system prompt${replaced}: ${quoted(event.data.content, 60)}`;
    case "user/message":
      return `user [${event.data.source}]${replaced}: ${quoted(textOf(event.data.content))}`;
    case "assistant/message":
      return `assistant${replaced}: ${event.data.content.map(assistantBlock).join(" ") || "(empty)"}`;
    case "tool/result":
      return `tool ${event.data.toolName}${event.data.isError ? " ERROR" : ""}${replaced}: ${quoted(textOf(event.data.content), 60)}${event.data.child === undefined ? "" : ` (subagent session ${event.data.child.sessionId}, ${event.data.child.events} events)`}`;
  }
}

function surfaceKind(event: SurfaceEvent): EventKind {
  if (event.data.replaces === undefined) return event.type === "tool/result" ? "tool" : "message";
  return event.type === "tool/result" ? "trim" : "compaction";
}

/** The loop's own events (turns, steps, requests, compaction, tools), or `undefined` for any other. */
function loopEvent(event: LogEvent): EventDescription | undefined {
  if (turnStartEvent.is(event)) return { kind: "turn", depth: 0, text: `turn ${event.data.turn}` };
  if (turnEndEvent.is(event)) return { kind: ended(event.data.reason) ?? "turn", depth: 0, text: `turn ${event.data.turn} ended: ${event.data.reason}` };
  if (stepStartEvent.is(event)) return { kind: "step", depth: 1, text: `step ${event.data.step}${event.data.startsRequestSeries === true ? " (starts a request series)" : ""}` };
  if (stepEndEvent.is(event)) {
    const { reason, finishReason, usage, error } = event.data;
    const used = usage === undefined ? "" : ` — in ${usage.inputTokens}, out ${usage.outputTokens}, cache read ${usage.cacheReadTokens}`;
    return { kind: ended(reason) ?? "step", depth: 2, text: `step end: ${reason}${finishReason === undefined ? "" : ` (${finishReason})`}${error ? ` ${error.code}` : ""}${used}` };
  }
  if (stepRejectEvent.is(event)) return { kind: "step", depth: 1, text: `step ${event.data.step} rejected by agent/pre-step${event.data.reason === undefined ? "" : `: ${previewText(event.data.reason, 60)}`}` };
  if (requestDispatchEvent.is(event)) return { kind: "request", depth: 2, text: "request dispatched" };
  if (requestRetryEvent.is(event)) {
    const { attempt, delayMs, error } = event.data;
    return { kind: "retry", depth: 2, text: `retry ${attempt} after ${delayMs} ms: ${error.code} ${previewText(error.message, 60)}` };
  }
  if (toolIntentEvent.is(event)) return { kind: "tool", depth: 2, text: `${event.data.toolName} about to run (not safe to rerun: its intent is logged first)` };
  if (toolApprovalEvent.is(event)) {
    const { toolName, allowed, by, reason } = event.data;
    return { kind: "tool", depth: 2, text: `${toolName} ${allowed ? "allowed" : "denied"} by ${by}${reason === undefined ? "" : `: ${previewText(reason, 60)}`}` };
  }
  if (sessionParentEvent.is(event)) return { kind: "other", depth: 0, text: `subagent session of ${event.data.sessionId}: call ${event.data.callId} (${event.data.toolName}) of the answer at seq ${event.data.answerSeq}` };
  if (attachmentQuarantineEvent.is(event)) return { kind: "other", depth: 2, text: `quarantine proposed for ${event.data.digest} (${event.data.code}), nodes at seqs ${event.data.nodes.join(", ")}` };
  return compactionEvent(event);
}

function compactionEvent(event: LogEvent): EventDescription | undefined {
  if (compactionStartEvent.is(event)) return { kind: "compaction", depth: 1, text: `compaction (${event.data.reason}) of nodes at seqs ${event.data.range.start}..${event.data.range.end}` };
  if (compactionForecastEvent.is(event)) {
    const usd = (value: number) => `$${Number(value.toPrecision(4))}`;
    const plans = event.data.plans.map(({ plan, summaryUsd, requestsUsd }) => `${plan} ${usd(summaryUsd + requestsUsd.reduce((sum, cost) => sum + cost, 0))}`);
    return { kind: "compaction", depth: 1, text: `compaction forecast: ${plans.join(", ")}; chose ${event.data.choice}` };
  }
  if (compactionSummaryEvent.is(event)) {
    const { provider, model, maxTokens, summary } = event.data;
    return { kind: "compaction", depth: 2, text: `summary by ${provider}/${model} (maxTokens ${maxTokens}): ${quoted(summary, 60)}` };
  }
  if (compactionEndEvent.is(event)) {
    const { outcome, error } = event.data;
    return { kind: "compaction", depth: 1, text: `compaction ${outcome}${error === undefined ? "" : `: ${error.code} ${previewText(error.message, 60)}`}` };
  }
  return undefined;
}

function headerText(event: LogEvent): string | undefined {
  if (!requestHeaderEvent.is(event)) return undefined;
  const { reason, startsSeries, header } = event.data;
  const defaults = Object.keys(header.adapterDefaults ?? {});
  const tools = (header.tools ?? []).map((tool) => tool.name).join(", ") || "none";
  const config = Object.entries(header.config)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}${defaults.includes(key) ? " (adapter default)" : ""}`)
    .join(" ");
  return `header ${reason}${startsSeries === true ? " + series" : ""}: ${config}; tools: ${tools}`;
}

/**
 * One logged event in a line of plain words, as `dsh inspect` prints it and the web timeline shows
 * it: turns, steps, header snapshots (adapter defaults marked), messages, tool calls and results,
 * retries, compaction; an event of another package is named by its type.
 */
export function describeEvent(event: LogEvent): EventDescription {
  const header = headerText(event);
  if (header !== undefined) return { kind: "header", depth: 2, text: header };
  if (isSurfaceEvent(event)) return { kind: surfaceKind(event), depth: 2, text: surfaceText(event) };
  return loopEvent(event) ?? { kind: "other", depth: 2, text: event.type };
}
