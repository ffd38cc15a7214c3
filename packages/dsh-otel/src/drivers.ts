import type { Resource } from "@opentelemetry/resources";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { EventLog, LogEvent } from "dsh-log";
import { cacheReadAttributes } from "./attributes.js";
import { OtelError } from "./errors.js";
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
  /**
   * The share of a sent request's prompt the provider should have read from its cache (for example
   * `expectedCacheReads()` of `dsh-cache-report`), put on its `chat` span as
   * `dsh.cache.expected_read_share` beside the reported `dsh.cache.read_share`, so a dashboard can
   * alert when a provider reads less than the log says it could. Called once per sent request, in
   * dispatch order.
   */
  readonly expectedCacheReadShare?: (request: LoggedRequest) => Promise<number | undefined> | number | undefined;
}

/** Options of {@link exportSession}, {@link followSession} and {@link exportLive}. */
export interface ExportOptions extends SpanOptions {
  /** The resource spans are reported under (default: `service.name` `dsh`). */
  readonly resource?: Resource;
  /** How often a batch the receiver did not take is sent again (default 3), the first wait (default 250 ms, doubled each time). */
  readonly retry?: { readonly retries?: number; readonly baseDelayMs?: number };
}

/** Options of the drivers that follow a growing log: where a batch the receiver never took is reported. */
export interface FollowOptions extends ExportOptions {
  /**
   * The seq from which spans are sent. The events before it are folded (a span they opened is sent
   * when a later event finishes it) but the spans they finished are not: an earlier export sent them.
   * A resumed session passes `log.length` (default 0: all).
   */
  readonly from?: number;
  /**
   * Hears each batch the receiver did not take after its retries (an `OTEL_EXPORT_FAILED` naming how
   * many spans were dropped); the export carries on with the next. {@link exportLive}'s default is a
   * warning on the console; {@link followSession} without it stops with the error.
   */
  readonly onError?: (error: unknown) => void;
}

/** Sends spans, again after a wait each time the receiver does not take them, until the retries are spent. */
async function exportWithRetries(exporter: SpanExporter, spans: readonly SpanRecord[], resource: Resource, retry: ExportOptions["retry"]): Promise<void> {
  const retries = retry?.retries ?? 3;
  let delay = retry?.baseDelayMs ?? 250;
  for (let attempt = 0; ; attempt++) {
    try {
      await exportSpans(exporter, spans, resource);
      return;
    } catch (error) {
      if (attempt >= retries || !(error instanceof OtelError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}

/** `error` (a batch that was not taken) as the failure a follower reports: the spans were dropped. */
function dropped(error: unknown): unknown {
  if (!(error instanceof OtelError)) return error;
  return new OtelError("OTEL_EXPORT_FAILED", `${error.message}; dropped them after the retries, the export goes on`, { cause: error });
}

/** What an attribute source threw, as the failure a driver reports; the span goes without that attribute. */
function attributeFailed(what: string, request: LoggedRequest, error: unknown): OtelError {
  const reason = error instanceof Error ? error.message : String(error);
  return new OtelError("OTEL_ATTRIBUTE_FAILED", `the ${what} of the request at seq ${request.dispatchSeq} failed: ${reason}; its chat span goes without it`, { cause: error });
}

/**
 * Adds what the options' sources say to each chat span. A source that throws leaves its attribute
 * off that span and goes to `onError`, or without one is thrown once every span is done.
 */
async function finish(projected: readonly ProjectedSpan[], options: SpanOptions, onError?: (error: unknown) => void): Promise<SpanRecord[]> {
  const { wireHash, expectedCacheReadShare } = options;
  const out: SpanRecord[] = [];
  let failure: unknown;
  const report = (error: OtelError) => (onError === undefined ? (failure ??= error) : onError(error));
  for (const { span, request } of projected) {
    if (request === undefined) {
      out.push(span);
      continue;
    }
    /** What `source` gives for the request; a source that throws gives nothing, its failure reported. */
    const ask = async <T>(what: string, source: ((request: LoggedRequest) => Promise<T | undefined> | T | undefined) | undefined): Promise<T | undefined> => {
      try {
        return await source?.(request);
      } catch (error) {
        report(attributeFailed(what, request, error));
        return undefined;
      }
    };
    let attributes = span.attributes;
    const hash = await ask("wire hash", wireHash);
    if (hash !== undefined) attributes = { ...attributes, "dsh.request.wire_hash": hash };
    const share = attributes["dsh.request.sent"] === false ? undefined : await ask("expected cache read", expectedCacheReadShare);
    if (share !== undefined) attributes = { ...attributes, ...cacheReadAttributes(share, attributes) };
    out.push({ ...span, attributes });
  }
  if (failure !== undefined) throw failure;
  return out;
}

/** The spans `events` finish, folded in order, leaving out those finished by events before seq `from`. */
function projectFrom(projector: SpanProjector, events: readonly LogEvent[], from = 0): ProjectedSpan[] {
  return events.flatMap((event) => {
    const finished = projector.push(event);
    return event.seq >= from ? finished : [];
  });
}

/** Every span of a session's events, wire hashes included when asked: what an export sends. */
export async function sessionSpans(events: Iterable<LogEvent>, options: SpanOptions): Promise<SpanRecord[]> {
  return finish(projectSpans(events, options), options);
}

/** Exports the spans of a finished (or any prefix of a) session log, retried as `options.retry` says; resolves to the number sent. */
export async function exportSession(events: Iterable<LogEvent>, exporter: SpanExporter, options: ExportOptions): Promise<number> {
  const spans = await sessionSpans(events, options);
  await exportWithRetries(exporter, spans, options.resource ?? spanResource(), options.retry);
  return spans.length;
}

/**
 * Exports spans as batches of events arrive (a store's `follow`), each batch's finished spans once
 * it is folded, retried as `options.retry` says; resolves to the number sent when the batches end
 * (abort the follow to stop). A batch never taken stops the follow, or with `onError` is reported
 * and dropped while the follow goes on.
 */
export async function followSession(batches: AsyncIterable<readonly LogEvent[]>, exporter: SpanExporter, options: FollowOptions): Promise<number> {
  const projector = new SpanProjector(options);
  const resource = options.resource ?? spanResource();
  let sent = 0;
  for await (const batch of batches) {
    const spans = await finish(projectFrom(projector, batch, options.from), options, options.onError);
    try {
      await exportWithRetries(exporter, spans, resource, options.retry);
      sent += spans.length;
    } catch (error) {
      if (options.onError === undefined) throw error;
      options.onError(dropped(error));
    }
  }
  return sent;
}

/** A running in-process export; `stop()` unsubscribes, waits for what is queued and resolves to the number sent. */
export interface LiveExport {
  stop(): Promise<number>;
}

/** What {@link exportLive} does with a batch it dropped, unless told: a one-line warning, never a throw (telemetry never takes the agent down). */
const warn = (error: unknown) => console.warn(`dsh-otel: ${error instanceof Error ? error.message : String(error)}`);

/**
 * Exports the spans of an open log as it grows, in-process: what it holds now (from `from` on), then
 * each batch the agent appends, once durable. A batch the receiver does not take is sent again (`retry`), then
 * dropped and reported to `onError` (default: a warning on the console; never thrown, so a telemetry
 * outage never takes the agent down); the projection carries on, so a receiver that comes back gets
 * the later spans.
 */
export function exportLive(log: EventLog, exporter: SpanExporter, options: FollowOptions): LiveExport {
  const projector = new SpanProjector(options);
  const resource = options.resource ?? spanResource();
  const onError = options.onError ?? warn;
  let sent = 0;
  let queue: Promise<void> = Promise.resolve();
  const take = (events: readonly LogEvent[]) => {
    const projected = projectFrom(projector, events, options.from);
    queue = queue.then(async () => {
      await log.whenDurable();
      const spans = await finish(projected, options, onError);
      try {
        await exportWithRetries(exporter, spans, resource, options.retry);
        sent += spans.length;
      } catch (error) {
        onError(dropped(error));
      }
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
