export { SpanProjector, projectSpans, type ProjectedSpan, type ProjectionOptions } from "./projector.js";
export { exportLive, exportSession, followSession, sessionSpans, type ExportOptions, type FollowOptions, type LiveExport, type SpanOptions } from "./drivers.js";
export { INSTRUMENTATION_SCOPE, createSpanExporter, exportSpans, spanResource, toReadableSpan, tracesUrl, type ExporterOptions, type OtlpProtocol } from "./export.js";
export { spanIdOf, traceIdOf } from "./ids.js";
export type { LoggedRequest } from "./request.js";
export type { SpanAttributeValue, SpanAttributes, SpanEventRecord, SpanLinkRecord, SpanRecord } from "./span.js";
export { OtelError, type OtelErrorCode } from "./errors.js";
