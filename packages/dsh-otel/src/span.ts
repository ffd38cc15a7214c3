/** An attribute value as spans carry it: a primitive or an array of one primitive type. */
export type SpanAttributeValue = string | number | boolean | readonly string[] | readonly number[];

/** A span's attributes, keys in the order they were set. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue>>;

/** A link from a span to a span of another trace (a resumed turn's previous turn, a fork's parent). */
export interface SpanLinkRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly attributes: SpanAttributes;
}

/** A timed event on a span (a retried attempt). */
export interface SpanEventRecord {
  readonly name: string;
  readonly timeMs: number;
  readonly attributes: SpanAttributes;
}

/**
 * One span as the projection derives it from the log: plain data, ids as lowercase hex, times as the
 * log's epoch milliseconds. `toReadableSpan` turns it into what an OpenTelemetry exporter takes.
 */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: "client" | "internal";
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  readonly links: readonly SpanLinkRecord[];
  readonly events: readonly SpanEventRecord[];
  readonly status: { readonly code: "unset" | "error"; readonly message?: string };
}
