import { clipText } from "dsh-base";
import { describeEvent } from "dsh-agent";
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

/** The session an event links: a tool result's subagent session, or the parent a subagent session's first event names. */
function linkedSession(event: LogEvent): TimelineEntry["linked"] {
  const data = event.data as Data;
  const child = data.child as Data | undefined;
  if (event.type === "tool/result" && typeof child?.sessionId === "string") return { sessionId: child.sessionId, as: "subagent" };
  if (event.type === "session/parent" && typeof data.sessionId === "string" && typeof data.answerSeq === "number") return { sessionId: data.sessionId, seq: data.answerSeq, as: "parent" };
  return undefined;
}

/** The timeline entry of one event; `request` is its request number for a dispatch. */
export function timelineEntry(event: LogEvent, request: number | undefined, forkSeedLength: number | undefined): TimelineEntry {
  const described = describeEvent(event);
  let kind: TimelineKind = described.kind;
  let label = described.text;
  if (forkSeedLength !== undefined && event.seq === forkSeedLength - 1) {
    kind = "fork";
    label = `${label} — fork point: this session continues from here`;
  }
  const turn = (event.data as Data).turn;
  const linked = linkedSession(event);
  return {
    seq: event.seq,
    type: event.type,
    time: event.time,
    kind,
    label,
    ...(typeof turn === "number" ? { turn } : {}),
    ...(request === undefined ? {} : { request }),
    ...(linked === undefined ? {} : { linked }),
    // Long strings are clipped before the whole is built: a 50 MB answer never becomes a 50 MB detail.
    detail: clipText(JSON.stringify(event.data, (_key, value: unknown) => (typeof value === "string" && value.length > DETAIL_LIMIT ? clipText(value, DETAIL_LIMIT) : value), 2), DETAIL_LIMIT),
  };
}
