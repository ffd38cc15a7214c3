// A real OTLP/HTTP trace receiver on loopback, for tests: it decodes what exporters send (JSON or
// protobuf) into one plain shape, so a test can compare what arrived with what was projected.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** An attribute value as received. */
export type ReceivedValue = string | number | boolean | ReceivedValue[] | null;

/** One span as the receiver decoded it. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Record<string, ReceivedValue>;
  readonly links: { readonly traceId: string; readonly spanId: string; readonly attributes: Record<string, ReceivedValue> }[];
  readonly events: { readonly name: string; readonly attributes: Record<string, ReceivedValue> }[];
  readonly statusCode: number;
  readonly scope: string;
  readonly serviceName: string | undefined;
}

/** A running receiver: its base URL, what it received, and the content types and headers of each request. */
export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly requests: { readonly contentType: string; readonly headers: IncomingMessage["headers"] }[];
  /** Answer the next `count` exports with this status (a receiver that refuses). */
  refuseNext(count: number, status: number): void;
  close(): Promise<void>;
}

// ---- protobuf: a reader for the few message types an ExportTraceServiceRequest holds ----

type Field = { readonly no: number; readonly wire: number; readonly value: bigint | Uint8Array };

function fields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const [no, wire] = [key >> 3, key & 7];
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 1) {
      out.push({ no, wire, value: new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0, true) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ no, wire, value: bytes.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) at += 4;
    else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return out;
}

const text = (value: Field["value"]) => new TextDecoder().decode(value as Uint8Array);
const hex = (value: Field["value"]) => Buffer.from(value as Uint8Array).toString("hex");
const all = (list: Field[], no: number) => list.filter((field) => field.no === no);
const one = (list: Field[], no: number) => list.find((field) => field.no === no)?.value;

function anyValue(bytes: Uint8Array): ReceivedValue {
  const [field] = fields(bytes);
  if (field === undefined) return null;
  if (field.no === 1) return text(field.value);
  if (field.no === 2) return field.value !== 0n;
  if (field.no === 3) return Number(BigInt.asIntN(64, field.value as bigint));
  if (field.no === 4) return new Float64Array(new BigUint64Array([field.value as bigint]).buffer)[0]!;
  if (field.no === 5) return all(fields(field.value as Uint8Array), 1).map((value) => anyValue(value.value as Uint8Array));
  throw new Error(`unexpected AnyValue field ${field.no}`);
}

function protoAttributes(list: Field[], no: number): Record<string, ReceivedValue> {
  return Object.fromEntries(all(list, no).map((kv) => {
    const parts = fields(kv.value as Uint8Array);
    return [text(one(parts, 1)!), anyValue((one(parts, 2) as Uint8Array | undefined) ?? new Uint8Array())];
  }));
}

function fromProtobuf(body: Uint8Array): ReceivedSpan[] {
  return all(fields(body), 1).flatMap((resourceSpans) => {
    const rs = fields(resourceSpans.value as Uint8Array);
    const resource = one(rs, 1);
    const serviceName = resource === undefined ? undefined : protoAttributes(fields(resource as Uint8Array), 1)["service.name"];
    return all(rs, 2).flatMap((scopeSpans) => {
      const ss = fields(scopeSpans.value as Uint8Array);
      const scopeBytes = one(ss, 1);
      const scope = scopeBytes === undefined ? "" : text(one(fields(scopeBytes as Uint8Array), 1) ?? new Uint8Array());
      return all(ss, 2).map((spanField): ReceivedSpan => {
        const s = fields(spanField.value as Uint8Array);
        const status = one(s, 15);
        return {
          traceId: hex(one(s, 1)!),
          spanId: hex(one(s, 2)!),
          parentSpanId: one(s, 4) === undefined ? "" : hex(one(s, 4)!),
          name: text(one(s, 5)!),
          kind: Number(one(s, 6) ?? 0n),
          startNs: one(s, 7) as bigint,
          endNs: one(s, 8) as bigint,
          attributes: protoAttributes(s, 9),
          events: all(s, 11).map((event) => {
            const e = fields(event.value as Uint8Array);
            return { name: text(one(e, 2)!), attributes: protoAttributes(e, 3) };
          }),
          links: all(s, 13).map((link) => {
            const l = fields(link.value as Uint8Array);
            return { traceId: hex(one(l, 1)!), spanId: hex(one(l, 2)!), attributes: protoAttributes(l, 4) };
          }),
          statusCode: status === undefined ? 0 : Number(one(fields(status as Uint8Array), 3) ?? 0n),
          scope,
          serviceName: typeof serviceName === "string" ? serviceName : undefined,
        };
      });
    });
  });
}

// ---- JSON ----

type JsonAny = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number; arrayValue?: { values?: JsonAny[] } };
type JsonKv = { key: string; value?: JsonAny };

function jsonValue(value: JsonAny | undefined): ReceivedValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(jsonValue);
  return null;
}

const jsonAttributes = (list: JsonKv[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));

interface JsonSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; startTimeUnixNano: string | number; endTimeUnixNano: string | number;
  attributes?: JsonKv[]; links?: { traceId: string; spanId: string; attributes?: JsonKv[] }[]; events?: { name: string; attributes?: JsonKv[] }[]; status?: { code?: number };
}

function fromJson(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as { resourceSpans?: { resource?: { attributes?: JsonKv[] }; scopeSpans?: { scope?: { name?: string }; spans?: JsonSpan[] }[] }[] };
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const serviceName = jsonAttributes(rs.resource?.attributes)["service.name"];
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span): ReceivedSpan => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind ?? 0,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: jsonAttributes(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId, attributes: jsonAttributes(link.attributes) })),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: jsonAttributes(event.attributes) })),
        statusCode: span.status?.code ?? 0,
        scope: ss.scope?.name ?? "",
        serviceName: typeof serviceName === "string" ? serviceName : undefined,
      })),
    );
  });
}

/** Starts a receiver on a loopback port; `POST /v1/traces` takes `application/json` and `application/x-protobuf`, gzipped or not. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver["requests"][number][] = [];
  let refusals: { count: number; status: number } = { count: 0, status: 503 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const contentType = request.headers["content-type"] ?? "";
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      if (refusals.count > 0) {
        refusals = { ...refusals, count: refusals.count - 1 };
        response.writeHead(refusals.status, { "content-type": "application/json" }).end("{}");
        return;
      }
      let body = Buffer.concat(chunks);
      if (request.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      requests.push({ contentType, headers: request.headers });
      spans.push(...(contentType.includes("json") ? fromJson(body.toString("utf8")) : fromProtobuf(new Uint8Array(body))));
      response.writeHead(200, { "content-type": contentType.includes("json") ? "application/json" : "application/x-protobuf" }).end(contentType.includes("json") ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    refuseNext: (count, status) => void (refusals = { count, status }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
