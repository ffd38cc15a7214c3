import { clipText } from "dsh-base";
import { parseArgs } from "node:util";
import {
  attachmentQuarantineEvent,
  compactionEndEvent,
  compactionStartEvent,
  compactionSummaryEvent,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepRejectEvent,
  stepStartEvent,
  turnEndEvent,
  turnStartEvent,
} from "dsh-agent";
import { requestHeaderEvent } from "dsh-header";
import type { AssistantContent } from "dsh-llm";
import type { LogEvent, SessionInfo } from "dsh-log";
import { isSurfaceEvent, type SurfaceEvent } from "dsh-surface";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../printable.js";
import { followableStore, readSessionRef, sessionRef } from "../store.js";
import { streamSessionRef } from "../streamed.js";

export const INSPECT_USAGE = "dsh inspect LOG [--follow] [--store URL]";

/** How much of a text a one-line preview looks at: a long text is not flattened whole to show 80 characters of it. */
const PREVIEW_WINDOW = 4096;

/** `text` on one line (whitespace runs as one space), clipped to `length` with an ellipsis. */
export function clip(text: string, length = 80): string {
  const head = text.length > PREVIEW_WINDOW ? text.slice(0, PREVIEW_WINDOW) : text;
  const flat = head.replace(/\s+/g, " ").trim();
  return head.length === text.length || flat.length >= length ? clipText(flat, length) : `${flat}…`;
}

function describeAssistantBlock(block: AssistantContent): string {
  switch (block.type) {
    case "tool-call":
      return `→ ${block.name} ${clip(block.arguments, 60)}`;
    case "reasoning":
      return `(thinking ${block.text.length} chars${block.signature === undefined ? "" : ", signed"})`;
    case "redacted-reasoning":
      return "(redacted thinking)";
    case "provider-item":
      return `(${block.api} ${String(block.item.type ?? "item")})`;
    case "text":
      return JSON.stringify(clip(block.text));
  }
}

function describeSurface(event: SurfaceEvent): string {
  const replace = event.data.replaces;
  const replaced = replace === undefined ? "" : ` (replaces the messages logged at seqs ${replace.start}..${replace.end})`;
  switch (event.type) {
    case "system/message":
      return `system prompt${replaced}: ${JSON.stringify(clip(event.data.content, 60))}`;
    case "user/message":
      return `user [${event.data.source}]${replaced}: ${JSON.stringify(clip(event.data.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("")))}`;
    case "assistant/message": {
      const parts = event.data.content.map(describeAssistantBlock);
      return `assistant${replaced}: ${parts.join(" ") || "(empty)"}`;
    }
    case "tool/result": {
      const text = event.data.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("");
      return `tool ${event.data.toolName}${event.data.isError ? " ERROR" : ""}${replaced}: ${JSON.stringify(clip(text, 60))}`;
    }
  }
}

function describe(event: LogEvent): { indent: number; text: string } {
  if (turnStartEvent.is(event)) return { indent: 0, text: `turn ${event.data.turn}` };
  if (turnEndEvent.is(event)) return { indent: 0, text: `turn ${event.data.turn} ended: ${event.data.reason}` };
  if (stepStartEvent.is(event)) {
    return { indent: 1, text: `step ${event.data.step}${event.data.startsRequestSeries === true ? " (starts a request series)" : ""}` };
  }
  if (stepEndEvent.is(event)) {
    const { reason, finishReason, usage, error } = event.data;
    const used = usage === undefined ? "" : ` — in ${usage.inputTokens}, out ${usage.outputTokens}, cache read ${usage.cacheReadTokens}`;
    return { indent: 2, text: `step end: ${reason}${finishReason === undefined ? "" : ` (${finishReason})`}${error ? ` ${error.code}` : ""}${used}` };
  }
  if (stepRejectEvent.is(event)) {
    return { indent: 1, text: `step ${event.data.step} rejected by agent/pre-step${event.data.reason === undefined ? "" : `: ${clip(event.data.reason, 60)}`}` };
  }
  if (requestDispatchEvent.is(event)) return { indent: 2, text: "request dispatched" };
  if (requestRetryEvent.is(event)) {
    const { attempt, delayMs, error } = event.data;
    return { indent: 2, text: `retry ${attempt} after ${delayMs} ms: ${error.code} ${clip(error.message, 60)}` };
  }
  if (compactionStartEvent.is(event)) {
    return { indent: 1, text: `compaction (${event.data.reason}) of nodes at seqs ${event.data.range.start}..${event.data.range.end}` };
  }
  if (compactionSummaryEvent.is(event)) {
    const { provider, model, maxTokens, summary } = event.data;
    return { indent: 2, text: `summary by ${provider}/${model} (maxTokens ${maxTokens}): ${JSON.stringify(clip(summary, 60))}` };
  }
  if (compactionEndEvent.is(event)) {
    return { indent: 1, text: `compaction ${event.data.outcome}${event.data.error === undefined ? "" : `: ${event.data.error.code} ${clip(event.data.error.message, 60)}`}` };
  }
  if (attachmentQuarantineEvent.is(event)) {
    return { indent: 2, text: `quarantine proposed for ${event.data.digest} (${event.data.code}), nodes at seqs ${event.data.nodes.join(", ")}` };
  }
  if (requestHeaderEvent.is(event)) {
    const { reason, startsSeries, header } = event.data;
    const defaults = Object.keys(header.adapterDefaults ?? {});
    const tools = (header.tools ?? []).map((tool) => tool.name).join(", ") || "none";
    const config = Object.entries(header.config)
      .map(([key, value]) => `${key}=${JSON.stringify(value)}${defaults.includes(key) ? " (adapter default)" : ""}`)
      .join(" ");
    return { indent: 2, text: `header ${reason}${startsSeries === true ? " + series" : ""}: ${config}; tools: ${tools}` };
  }
  if (isSurfaceEvent(event)) return { indent: 2, text: describeSurface(event) };
  return { indent: 2, text: `${event.type}` };
}

function eventLine(event: LogEvent): string {
  const line = describe(event);
  return `${String(event.seq).padStart(5)} ${"  ".repeat(line.indent)}${printable(line.text)}`;
}

/** The first line: the session, when it was created, its events, and the session it was forked from. */
function headline(info: SessionInfo, events: number): string {
  return `session ${info.sessionId}, created ${new Date(info.createdAt).toISOString()}, ${events} events` + (info.parent === undefined ? "" : `, forked from ${info.parent.sessionId} at seq ${info.parent.seedLength}`);
}

/** `dsh inspect`: a readable timeline of turns, steps, headers and tool calls; with `--follow`, then every event another process appends. */
export async function inspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { follow: { type: "boolean", default: false }, store: { type: "string" } } });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${INSPECT_USAGE}`, EXIT.usage);
  const ref = sessionRef(reference, values.store, io);
  if (values.follow !== true) {
    // Streamed twice, a batch at a time: first checked whole (a bad log prints nothing but the refusal), then printed.
    const checked = await streamSessionRef(ref, io, () => undefined);
    io.stdout.write(`${headline(checked.info, checked.events)}\n`);
    await streamSessionRef(ref, io, (batch) => io.stdout.write(`${batch.map(eventLine).join("\n")}\n`), { quiet: true });
    return EXIT.ok;
  }
  const session = await readSessionRef(ref, io);
  await session.close();
  const { info, log } = session;
  io.stdout.write(`${[headline(info, log.length), ...log.slice().map(eventLine)].join("\n")}\n`);
  const store = await followableStore(ref, io);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  io.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const batch of store.follow(info.sessionId, { fromSeq: log.length, signal: stop.signal })) {
      // Followed events are admitted like loaded ones: the same checks as on append.
      log.load(batch);
      io.stdout.write(`${batch.map(eventLine).join("\n")}\n`);
    }
  } finally {
    io.signal?.removeEventListener("abort", onAbort);
    await store.close();
  }
  return io.signal?.aborted === true ? EXIT.interrupted : EXIT.ok;
}
