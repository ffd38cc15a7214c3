import { createHash } from "node:crypto";
import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "dsh-testkit/otlp-receiver";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { exportLive, exportSession, followSession, sessionSpans } from "./drivers.js";
import { createSpanExporter, spanResource, tracesUrl } from "./export.js";
import type { SpanRecord } from "./span.js";
import { recordSessions, type RecordedSessions } from "./test-support/session.js";

let recorded: RecordedSessions;
beforeAll(async () => void (recorded = await recordSessions()));

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** What a projected span must look like once it has crossed the wire. */
function onTheWire(span: SpanRecord) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? "",
    name: span.name,
    kind: span.kind === "client" ? 3 : 1,
    startNs: BigInt(span.startMs) * 1_000_000n,
    endNs: BigInt(span.endMs) * 1_000_000n,
    attributes: Object.fromEntries(Object.entries(span.attributes).map(([key, value]) => [key, Array.isArray(value) ? [...value] : value])),
    links: span.links.map((link) => ({ traceId: link.traceId, spanId: link.spanId, attributes: { ...link.attributes } })),
    events: span.events.map((event) => ({ name: event.name, attributes: { ...event.attributes } })),
    statusCode: span.status.code === "error" ? 2 : 0,
    scope: "dsh-otel",
    serviceName: "dsh",
  };
}

const sorted = (spans: readonly ReceivedSpan[]) => [...spans].sort((a, b) => (a.spanId < b.spanId ? -1 : 1));

describe("exportSession", () => {
  it.each(["http/protobuf", "http/json"] as const)("sends every projected span over OTLP/HTTP (%s), ids, times and attributes intact", async (protocol) => {
    receiver = await startOtlpReceiver();
    const exporter = createSpanExporter({ endpoint: receiver.url, protocol, headers: { "x-api-key": "k1" } });
    const sent = await exportSession(recorded.events, exporter, { sessionId: "s1" });
    await exporter.shutdown();
    const projected = await sessionSpans(recorded.events, { sessionId: "s1" });
    expect(sent).toBe(projected.length);
    expect(sorted(receiver.spans)).toEqual(sorted(projected.map(onTheWire) as ReceivedSpan[]));
    expect(receiver.requests.map((request) => [request.contentType, request.headers["x-api-key"]])).toEqual([[protocol === "http/json" ? "application/json" : "application/x-protobuf", "k1"]]);
  });

  it("exports the same span ids again on a second export, so a backend de-duplicates a backfill", async () => {
    receiver = await startOtlpReceiver();
    const exporter = createSpanExporter({ endpoint: receiver.url });
    await exportSession(recorded.events, exporter, { sessionId: "s1" });
    await exportSession(recorded.events, exporter, { sessionId: "s1" });
    await exporter.shutdown();
    const ids = receiver.spans.map((span) => span.spanId);
    expect(ids.slice(0, ids.length / 2)).toEqual(ids.slice(ids.length / 2));
  });

  it("puts the wire hash a caller computes on each chat span", async () => {
    const hash = (body: string) => `sha256:${createHash("sha256").update(body).digest("hex")}`;
    const { serializeRequest } = await import("dsh-openai-compatible");
    const spans = await sessionSpans(recorded.events, { sessionId: "s1", wireHash: async ({ request }) => hash(await serializeRequest(request, { dialect: "deepseek" })) });
    const chats = spans.filter((span) => span.name.startsWith("chat"));
    // The simulator received the retried request twice; each request's hash is that of the bytes it got.
    const received = [...new Set(recorded.bodies.slice(0, 5))].map(hash);
    expect(chats.map((span) => span.attributes["dsh.request.wire_hash"])).toEqual(received);
    expect(spans.filter((span) => !span.name.startsWith("chat")).some((span) => "dsh.request.wire_hash" in span.attributes)).toBe(false);
  });

  it("fails with OTEL_EXPORT_FAILED, one line, when the receiver refuses", async () => {
    receiver = await startOtlpReceiver();
    receiver.refuseNext(5, 400);
    const exporter = createSpanExporter({ endpoint: receiver.url, protocol: "http/json" });
    await expect(exportSession(recorded.events, exporter, { sessionId: "s1" })).rejects.toMatchObject({ code: "OTEL_EXPORT_FAILED", message: expect.stringMatching(/^the OTLP receiver did not take 9 span\(s\): .+/) });
    await exporter.shutdown();
  });
});

describe("tracesUrl", () => {
  it("appends the traces path to a base URL and keeps a traces URL as it is", () => {
    expect(tracesUrl("http://127.0.0.1:4318")).toBe("http://127.0.0.1:4318/v1/traces");
    expect(tracesUrl("https://otel.example/api/public/otel/")).toBe("https://otel.example/api/public/otel/v1/traces");
    expect(tracesUrl("http://h:4318/v1/traces")).toBe("http://h:4318/v1/traces");
  });

  it("refuses what is not an http(s) URL, and a protocol other than OTLP over HTTP", () => {
    expect(() => tracesUrl("localhost:4318")).toThrow(expect.objectContaining({ code: "OTEL_INVALID_OPTIONS", message: "the OTLP endpoint localhost:4318 is not an http(s) URL" }));
    expect(() => tracesUrl("not a url")).toThrow(expect.objectContaining({ code: "OTEL_INVALID_OPTIONS", message: "the OTLP endpoint not a url is not a URL" }));
    expect(() => createSpanExporter({ protocol: "grpc" as "http/json" })).toThrow(expect.objectContaining({ code: "OTEL_INVALID_OPTIONS" }));
  });
});

describe("live export", () => {
  it("sends, while an agent runs, exactly the spans an export of the finished log sends", async () => {
    receiver = await startOtlpReceiver();
    const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "clock", arguments: {} }] }, { text: "Noon." }, { text: "Bye." }] } });
    try {
      const clock = defineTool({ name: "clock", description: "The time", parameters: z.object({}), execute: () => "12:00" });
      const log = new EventLog({ registry: createAgentRegistry() });
      const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
      const exporter = createSpanExporter({ endpoint: receiver.url });
      const agent = new Agent({ log, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief.", tools: [clock] });
      await agent.run("Time?");
      // Started mid-session: what the log already holds is sent first.
      const live = exportLive(log, exporter, { sessionId: "live" });
      await agent.run("Thanks.");
      expect(await live.stop()).toBe(6);
      const expected = (await sessionSpans(log.slice(), { sessionId: "live" })).map(onTheWire);
      expect(sorted(receiver.spans)).toEqual(sorted(expected as ReceivedSpan[]));
      await exporter.shutdown();
    } finally {
      await sim.close();
    }
  });

  it("follows batches as a store delivers them, giving the spans of the whole log", async () => {
    receiver = await startOtlpReceiver();
    const exporter = createSpanExporter({ endpoint: receiver.url, protocol: "http/json" });
    async function* batches() {
      for (let at = 0; at < recorded.events.length; at += 3) yield recorded.events.slice(at, at + 3);
    }
    expect(await followSession(batches(), exporter, { sessionId: "s1", resource: spanResource("dsh") })).toBe(9);
    expect(sorted(receiver.spans)).toEqual(sorted((await sessionSpans(recorded.events, { sessionId: "s1" })).map(onTheWire) as ReceivedSpan[]));
    await exporter.shutdown();
  });
});
