import { clipText } from "dsh-base";
import { requestHeaderEvent } from "dsh-header";
import type { LogEvent } from "dsh-log";
import type { TimelineEntry, TimelineKind } from "./view-types.js";

type Data = Readonly<Record<string, unknown>>;

const DETAIL_LIMIT = 4000;


/** A provider's own item in words: its type, and a reasoning item's summary when it has one (its content is encrypted). */
function providerItemText(item: { type?: unknown; summary?: unknown } | undefined): string {
  const summary = Array.isArray(item?.summary) ? item.summary.map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : "")).join(" ") : "";
  return `[${typeof item?.type === "string" ? item.type : "provider item"}${summary === "" ? "" : `: ${summary}`}]`;
}

/** The text of content blocks, images by digest. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: string; text?: string; name?: string; arguments?: string; image?: { digest?: string }; item?: { type?: unknown; summary?: unknown } }) => {
      if (block.type === "text" || block.type === "reasoning") return block.text ?? "";
      if (block.type === "provider-item") return providerItemText(block.item);
      if (block.type === "image") return `[image ${block.image?.digest ?? ""}]`;
      if (block.type === "tool-call") return `→ ${block.name ?? ""}(${block.arguments ?? ""})`;
      return `[${block.type ?? "block"}]`;
    })
    .join("\n");
}

function describe(event: LogEvent): { kind: TimelineKind; label: string } {
  const data = event.data as Data;
  const replaced = data.replaces as { start: number; end: number } | undefined;
  const replaces = replaced === undefined ? "" : ` (replaces seqs ${replaced.start}..${replaced.end})`;
  switch (event.type) {
    case "turn/start":
      return { kind: "turn", label: `turn ${String(data.turn)} starts` };
    case "turn/end":
      return { kind: data.reason === "interrupted" || data.reason === "aborted" ? "interruption" : "turn", label: `turn ${String(data.turn)} ends: ${String(data.reason)}` };
    case "step/start":
      return { kind: "step", label: `step ${String(data.step)}${data.startsRequestSeries === true ? " (starts a request series)" : ""}` };
    case "step/end":
      return { kind: data.reason === "interrupted" || data.reason === "aborted" ? "interruption" : "step", label: `step ${String(data.step)} ends: ${String(data.reason)}` };
    case "step/reject":
      return { kind: "step", label: `step ${String(data.step)} rejected${typeof data.reason === "string" ? `: ${data.reason}` : ""}` };
    case "request/dispatch":
      return { kind: "request", label: `request dispatched (turn ${String(data.turn)} step ${String(data.step)})` };
    case "request/retry":
      return { kind: "retry", label: `retry ${String(data.attempt)} after ${String(data.delayMs)} ms: ${String((data.error as Data).code)}` };
    case "system/message":
      return { kind: replaced === undefined ? "message" : "compaction", label: `system prompt${replaces}` };
    case "user/message":
      return { kind: replaced === undefined ? "message" : "compaction", label: `${String(data.source)}: ${clipText(contentText(data.content).split("\n")[0] ?? "", 120)}${replaces}` };
    case "assistant/message":
      return { kind: "message", label: `model: ${clipText(contentText(data.content).replace(/\n/g, " "), 120)}` };
    case "tool/result":
      return { kind: replaced === undefined ? "tool" : "trim", label: `${String(data.toolName)} result${data.isError === true ? " (error)" : ""}${replaced === undefined ? "" : ` trimmed${replaces}`}` };
    case "compaction/start":
      return { kind: "compaction", label: `compaction (${String(data.reason)}) of seqs ${(data.range as Data).start as number}..${(data.range as Data).end as number}` };
    case "compaction/summary":
      return { kind: "compaction", label: `summary by ${String(data.provider)}/${String(data.model)}` };
    case "compaction/end":
      return { kind: "compaction", label: `compaction ${String(data.outcome)}` };
    case "tool/intent":
      return { kind: "tool", label: `${String(data.toolName)} about to run (not safe to rerun: its intent is logged first)` };
    case "attachment/quarantine":
      return { kind: "other", label: `attachment ${String(data.digest)} unreadable: quarantine proposed` };
    default:
      return { kind: "other", label: event.type };
  }
}

/** The timeline entry of one event; `request` is its request number for a dispatch. */
export function timelineEntry(event: LogEvent, request: number | undefined, forkSeedLength: number | undefined): TimelineEntry {
  let { kind, label } = requestHeaderEvent.is(event)
    ? { kind: "header" as const, label: `header snapshot: ${event.data.reason}${event.data.startsSeries === true ? " + series" : ""} (${event.data.header.config.provider}/${event.data.header.config.model})` }
    : describe(event);
  if (forkSeedLength !== undefined && event.seq === forkSeedLength - 1) {
    kind = "fork";
    label = `${label} — fork point: this session continues from here`;
  }
  const turn = (event.data as Data).turn;
  return {
    seq: event.seq,
    type: event.type,
    time: event.time,
    kind,
    label,
    ...(typeof turn === "number" ? { turn } : {}),
    ...(request === undefined ? {} : { request }),
    // Long strings are clipped before the whole is built: a 50 MB answer never becomes a 50 MB detail.
    detail: clipText(JSON.stringify(event.data, (_key, value: unknown) => (typeof value === "string" && value.length > DETAIL_LIMIT ? clipText(value, DETAIL_LIMIT) : value), 2), DETAIL_LIMIT),
  };
}
