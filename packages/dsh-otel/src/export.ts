import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type HrTime } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { OtelError } from "./errors.js";
import type { SpanRecord } from "./span.js";

/** The name and version spans are reported under (their instrumentation scope). */
export const INSTRUMENTATION_SCOPE = { name: "dsh-otel", version: "0.1.0" } as const;

/** How spans travel: OTLP over HTTP, as protobuf (the OpenTelemetry default) or JSON. */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** Options of {@link createSpanExporter}. */
export interface ExporterOptions {
  /**
   * The receiver's base URL (`/v1/traces` is appended unless the path already ends with it). Without
   * it the exporter reads `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`, as every
   * OpenTelemetry SDK does, and defaults to `http://localhost:4318`.
   */
  readonly endpoint?: string;
  /** `http/protobuf` or `http/json`; without it `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. */
  readonly protocol?: OtlpProtocol;
  /** Extra request headers (an API key); `OTEL_EXPORTER_OTLP_HEADERS` is read too. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMillis?: number;
}

/** The traces URL of an OTLP/HTTP receiver given its base URL (or the traces URL itself). */
export function tracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new OtelError("OTEL_INVALID_OPTIONS", `the OTLP endpoint ${endpoint} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OtelError("OTEL_INVALID_OPTIONS", `the OTLP endpoint ${endpoint} is not an http(s) URL`);
  if (url.pathname.endsWith("/v1/traces")) return url.href;
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  return url.href;
}

/** An OTLP/HTTP span exporter from the OpenTelemetry SDK, for {@link exportSpans} and the drivers. */
export function createSpanExporter(options: ExporterOptions = {}): SpanExporter {
  const config = {
    ...(options.endpoint === undefined ? {} : { url: tracesUrl(options.endpoint) }),
    ...(options.headers === undefined ? {} : { headers: { ...options.headers } }),
    ...(options.timeoutMillis === undefined ? {} : { timeoutMillis: options.timeoutMillis }),
  };
  const protocol = options.protocol ?? process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf";
  if (protocol === "http/json") return new JsonExporter(config);
  if (protocol === "http/protobuf") return new ProtobufExporter(config);
  throw new OtelError("OTEL_INVALID_OPTIONS", `OTLP protocol ${String(protocol)} is not supported: use http/protobuf or http/json`);
}

/** The resource spans are reported under: `service.name` (default `dsh`). */
export function spanResource(serviceName = "dsh"): Resource {
  return resourceFromAttributes({ "service.name": serviceName });
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

function attributes(record: SpanRecord["attributes"]): Attributes {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, Array.isArray(value) ? [...value] : value])) as Attributes;
}

/** A projected span as the SDK's exporters take it, with its ids and the log's times kept. */
export function toReadableSpan(span: SpanRecord, resource: Resource): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  const endMs = Math.max(span.endMs, span.startMs);
  return {
    name: span.name,
    kind: span.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(span.parentSpanId === undefined ? {} : { parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED } }),
    startTime: hrTime(span.startMs),
    endTime: hrTime(endMs),
    duration: hrTime(endMs - span.startMs),
    status: span.status.code === "error" ? { code: SpanStatusCode.ERROR, ...(span.status.message === undefined ? {} : { message: span.status.message }) } : { code: SpanStatusCode.UNSET },
    attributes: attributes(span.attributes),
    links: span.links.map((link) => ({ context: { traceId: link.traceId, spanId: link.spanId, traceFlags: TraceFlags.SAMPLED }, attributes: attributes(link.attributes) })),
    events: span.events.map((event) => ({ name: event.name, time: hrTime(event.timeMs), attributes: attributes(event.attributes) })),
    ended: true,
    resource,
    instrumentationScope: INSTRUMENTATION_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** Sends spans through an exporter; a refusal or an unreachable receiver is `OTEL_EXPORT_FAILED`. */
export async function exportSpans(exporter: SpanExporter, spans: readonly SpanRecord[], resource: Resource = spanResource()): Promise<void> {
  if (spans.length === 0) return;
  const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) => exporter.export(spans.map((span) => toReadableSpan(span, resource)), resolve));
  if (result.code !== ExportResultCode.SUCCESS) {
    throw new OtelError("OTEL_EXPORT_FAILED", `the OTLP receiver did not take ${spans.length} span(s): ${result.error?.message ?? "unknown error"}`, { cause: result.error });
  }
}
