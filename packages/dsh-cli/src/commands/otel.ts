import { parseArgs } from "node:util";
import { maskUrlPassword } from "dsh-base";
import type { LogEvent } from "dsh-log";
import { expectedCacheReads } from "dsh-cache-report";
import { OtelError, createSpanExporter, followSession, spanResource, tracesUrl, type LoggedRequest, type OtlpProtocol } from "dsh-otel";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { wireBody, wireSha256 } from "dsh-wire";
import { attachmentStore } from "../session.js";
import { followableStore, readSessionRef, sessionRef } from "../store.js";

export const OTEL_USAGE =
  "dsh otel LOG [--endpoint URL] [--protocol http/protobuf|http/json] [--follow] [--content] [--service-name NAME] [--objects DIR] [--store URL]";

const PROTOCOLS: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];

/** The OTLP settings from the options, else the standard `OTEL_*` variables, else OpenTelemetry's defaults. */
function otlpSettings(values: { endpoint?: string; protocol?: string; "service-name"?: string }, env: CliIo["env"]) {
  const endpoint = values.endpoint ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318";
  const protocol = values.protocol ?? env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf";
  if (!PROTOCOLS.includes(protocol as OtlpProtocol)) throw new CliError(`--protocol must be http/protobuf or http/json, not ${protocol}`, EXIT.usage);
  const headers = Object.fromEntries(
    (env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS ?? "")
      .split(",")
      .map((pair) => pair.split("="))
      .filter((pair): pair is [string, string] => pair.length === 2 && pair[0]!.trim() !== "")
      .map(([key, value]) => [decodeURIComponent(key.trim()), decodeURIComponent(value.trim())]),
  );
  const serviceName = values["service-name"] ?? env.OTEL_SERVICE_NAME ?? "dsh";
  return { url: tracesUrl(endpoint), protocol: protocol as OtlpProtocol, headers, serviceName };
}

/**
 * `dsh otel`: sends a session's spans (one per request, tool call and turn, per the GenAI semantic
 * conventions) to an OTLP/HTTP receiver; with `--follow`, then the spans of every event appended
 * until interrupted. The same session gives the same span ids every time.
 */
export async function otelCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      endpoint: { type: "string" },
      protocol: { type: "string" },
      follow: { type: "boolean", default: false },
      content: { type: "boolean", default: false },
      "service-name": { type: "string" },
      objects: { type: "string" },
      store: { type: "string" },
    },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${OTEL_USAGE}`, EXIT.usage);
  const settings = otlpSettings(values, io.env);
  const ref = sessionRef(reference, values.store, io);
  const session = await readSessionRef(ref, io);
  await session.close();
  const { info, log } = session;
  const attachments = attachmentStore(io.cwd, values.objects);
  const wireHash = async (rebuilt: LoggedRequest) => `sha256:${wireSha256(await wireBody(rebuilt, attachments))}`;
  const exporter = createSpanExporter({ endpoint: settings.url, protocol: settings.protocol, headers: settings.headers });
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  io.signal?.addEventListener("abort", onAbort, { once: true });
  const store = values.follow === true ? await followableStore(ref, io) : undefined;
  async function* batches(): AsyncGenerator<readonly LogEvent[]> {
    yield log.slice();
    if (store === undefined) return;
    for await (const batch of store.follow(info.sessionId, { fromSeq: log.length, signal: stop.signal })) {
      // Followed events are admitted like loaded ones before they are projected.
      log.load(batch);
      yield batch;
    }
  }
  try {
    // A span that goes without its wire hash or expected cache read is noted once; following, a batch
    // the receiver never takes is reported and the follow goes on, where a one-off export fails instead.
    let unattributed: string | undefined;
    const onError = (error: unknown) => {
      if (error instanceof OtelError && error.code === "OTEL_ATTRIBUTE_FAILED") unattributed ??= error.message;
      else if (store === undefined) throw error;
      else io.stderr.write(`dsh: note: ${error instanceof Error ? error.message : String(error)}\n`);
    };
    const expectedCacheReadShare = expectedCacheReads({ attachments });
    const options = { sessionId: info.sessionId, parent: info.parent, content: values.content === true, wireHash, expectedCacheReadShare, resource: spanResource(settings.serviceName), onError };
    const sent = await followSession(batches(), exporter, options);
    io.stderr.write(`sent ${sent} span(s) of session ${info.sessionId} to ${maskUrlPassword(settings.url)}\n`);
    if (unattributed !== undefined) io.stderr.write(`dsh: note: some chat spans go without an attribute (first: ${unattributed})\n`);
  } finally {
    io.signal?.removeEventListener("abort", onAbort);
    await exporter.shutdown();
    await store?.close();
  }
  return io.signal?.aborted === true ? EXIT.interrupted : EXIT.ok;
}
