import type { Resource } from "@opentelemetry/resources";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { EventLog, LogEvent } from "dsh-log";
import { exportSpans, spanResource } from "./export.js";
import { SpanProjector, projectSpans, type ProjectedSpan, type ProjectionOptions } from "./projector.js";
import type { LoggedRequest } from "./request.js";
import type { SpanRecord } from "./span.js";

/** Options of the drivers: the projection's, and how to name each request's wire bytes. */
export interface SpanOptions extends ProjectionOptions {
  /**
   * The hash of the exact body a request was sent as (for example `sha256:` of the adapter's
   * serialization), put on its `chat` span as `dsh.request.wire_hash`. Without it, or when it gives
   * `undefined`, a span carries none.
   */
  readonly wireHash?: (request: LoggedRequest) => Promise<string | undefined> | string | undefined;
}

/** Options of {@link exportSession}, {@link followSession} and {@link exportLive}. */
export interface ExportOptions extends SpanOptions {
  /** The resource spans are reported under (default: `service.name` `dsh`). */
  readonly resource?: Resource;
}

async function finish(projected: readonly ProjectedSpan[], wireHash: SpanOptions["wireHash"]): Promise<SpanRecord[]> {
  const out: SpanRecord[] = [];
  for (const { span, request } of projected) {
    if (wireHash === undefined || request === undefined) {
      out.push(span);
      continue;
    }
    const hash = await wireHash(request);
    out.push(hash === undefined ? span : { ...span, attributes: { ...span.attributes, "dsh.request.wire_hash": hash } });
  }
  return out;
}

/** Every span of a session's events, wire hashes included when asked: what an export sends. */
export async function sessionSpans(events: Iterable<LogEvent>, options: SpanOptions): Promise<SpanRecord[]> {
  return finish(projectSpans(events, options), options.wireHash);
}

/** Exports the spans of a finished (or any prefix of a) session log; resolves to the number sent. */
export async function exportSession(events: Iterable<LogEvent>, exporter: SpanExporter, options: ExportOptions): Promise<number> {
  const spans = await sessionSpans(events, options);
  await exportSpans(exporter, spans, options.resource ?? spanResource());
  return spans.length;
}

/**
 * Exports spans as batches of events arrive (a store's `follow`), each batch's finished spans once
 * it is folded; resolves to the number sent when the batches end (abort the follow to stop).
 */
export async function followSession(batches: AsyncIterable<readonly LogEvent[]>, exporter: SpanExporter, options: ExportOptions): Promise<number> {
  const projector = new SpanProjector(options);
  const resource = options.resource ?? spanResource();
  let sent = 0;
  for await (const batch of batches) {
    const spans = await finish(batch.flatMap((event) => projector.push(event)), options.wireHash);
    await exportSpans(exporter, spans, resource);
    sent += spans.length;
  }
  return sent;
}

/** A running in-process export; `stop()` unsubscribes, waits for what is queued and resolves to the number sent. */
export interface LiveExport {
  stop(): Promise<number>;
}

/**
 * Exports the spans of an open log as it grows, in-process: what it holds now, then each batch the
 * agent appends, once durable. Export failures go to `onError` (default: rethrown asynchronously); the
 * projection carries on, so a receiver that comes back gets the later spans.
 */
export function exportLive(log: EventLog, exporter: SpanExporter, options: ExportOptions & { readonly onError?: (error: unknown) => void }): LiveExport {
  const projector = new SpanProjector(options);
  const resource = options.resource ?? spanResource();
  const onError = options.onError ?? ((error: unknown) => queueMicrotask(() => { throw error; }));
  let sent = 0;
  let queue: Promise<void> = Promise.resolve();
  const take = (events: readonly LogEvent[]) => {
    const projected = events.flatMap((event) => projector.push(event));
    queue = queue.then(async () => {
      await log.whenDurable();
      const spans = await finish(projected, options.wireHash);
      await exportSpans(exporter, spans, resource);
      sent += spans.length;
    }).catch(onError);
  };
  take(log.slice());
  const unsubscribe = log.subscribe(take);
  return {
    async stop() {
      unsubscribe();
      await queue;
      return sent;
    },
  };
}
