import { createHash } from "node:crypto";
import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "dsh-testkit/otlp-receiver";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { exportLive, exportSession, followSession, sessionSpans } from "./drivers.js";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { createSpanExporter, exportSpans, spanResource, toReadableSpan, tracesUrl } from "./export.js";
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

describe("toReadableSpan and exportSpans", () => {
  const span: SpanRecord = {
    traceId: "a".repeat(32),
    spanId: "b".repeat(16),
    parentSpanId: "c".repeat(16),
    name: "chat m",
    kind: "client",
    startMs: 1_700_000_000_123.5,
    endMs: 1_700_000_000_100,
    attributes: { n: 1, list: ["x"] },
    links: [{ traceId: "d".repeat(32), spanId: "e".repeat(16), attributes: { why: "resume" } }],
    events: [{ name: "retry", timeMs: 1_700_000_000_110, attributes: { attempt: 1 } }],
    status: { code: "error", message: "LLM_TIMEOUT" },
  };

  it("keeps the ids, the log's times (an end before the start is clamped to it), links, events and status", () => {
    const readable = toReadableSpan(span, spanResource("svc"));
    expect(readable.spanContext()).toEqual({ traceId: span.traceId, spanId: span.spanId, traceFlags: 1 });
    expect(readable.parentSpanContext).toEqual({ traceId: span.traceId, spanId: span.parentSpanId, traceFlags: 1 });
    expect([readable.startTime, readable.endTime, readable.duration]).toEqual([[1_700_000_000, 123_500_000], [1_700_000_000, 123_500_000], [0, 0]]);
    expect(readable).toMatchObject({ kind: 2, ended: true, status: { code: 2, message: "LLM_TIMEOUT" }, attributes: { n: 1, list: ["x"] }, instrumentationScope: { name: "dsh-otel" } });
    expect(readable.links).toEqual([{ context: { traceId: "d".repeat(32), spanId: "e".repeat(16), traceFlags: 1 }, attributes: { why: "resume" } }]);
    expect(readable.events).toEqual([{ name: "retry", time: [1_700_000_000, 110_000_000], attributes: { attempt: 1 } }]);
    expect(readable.resource.attributes["service.name"]).toBe("svc");
    const root = toReadableSpan({ ...span, parentSpanId: undefined, kind: "internal", status: { code: "unset" }, endMs: span.startMs + 2 }, spanResource());
    expect([root.parentSpanContext, root.kind, root.status, root.duration]).toEqual([undefined, 0, { code: 0 }, [0, 2_000_000]]);
    expect(toReadableSpan({ ...span, status: { code: "error" } }, spanResource()).status).toEqual({ code: 2 });
  });

  it("sends nothing for no spans, and reports an exporter that fails", async () => {
    const exporter = new InMemorySpanExporter();
    await exportSpans(exporter, []);
    await exportSpans(exporter, [span]);
    expect(exporter.getFinishedSpans().map((finished) => finished.name)).toEqual(["chat m"]);
    await exporter.shutdown();
    await expect(exportSpans(exporter, [span])).rejects.toMatchObject({ code: "OTEL_EXPORT_FAILED", message: expect.stringMatching(/^the OTLP receiver did not take 1 span\(s\): \S/) });
  });
});

describe("tracesUrl", () => {
  it("appends the traces path to a base URL and keeps a traces URL as it is", () => {
    expect(tracesUrl("http://127.0.0.1:4318")).toBe("http://127.0.0.1:4318/v1/traces");
    expect(tracesUrl("http://h:4318//")).toBe("http://h:4318/v1/traces");
    expect(tracesUrl("http://h/v1/traces/x")).toBe("http://h/v1/traces/x/v1/traces");
    expect(tracesUrl("https://otel.example/api/public/otel/")).toBe("https://otel.example/api/public/otel/v1/traces");
    expect(tracesUrl("http://h:4318/v1/traces")).toBe("http://h:4318/v1/traces");
  });

  it("refuses what is not an http(s) URL, and a protocol other than OTLP over HTTP", () => {
    expect(() => tracesUrl("localhost:4318")).toThrow(expect.objectContaining({ code: "OTEL_INVALID_OPTIONS", message: "the OTLP endpoint localhost:4318 is not an http(s) URL" }));
    expect(() => tracesUrl("not a url")).toThrow(expect.objectContaining({ code: "OTEL_INVALID_OPTIONS", message: "the OTLP endpoint not a url is not a URL" }));
    expect(() => createSpanExporter({ protocol: "grpc" as "http/json" })).toThrow(expect.objectContaining({ code: "OTEL_INVALID_OPTIONS" }));
  });

  it("takes the protocol from the standard variables when none is given, the traces one first", () => {
    try {
      vi.stubEnv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc");
      expect(() => createSpanExporter()).toThrow(expect.objectContaining({ code: "OTEL_INVALID_OPTIONS", message: "OTLP protocol grpc is not supported: use http/protobuf or http/json" }));
      vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json");
      expect(createSpanExporter()).toBeInstanceOf(JsonExporter);
      expect(createSpanExporter({ protocol: "http/protobuf" })).toBeInstanceOf(ProtobufExporter);
      vi.unstubAllEnvs();
      expect(createSpanExporter()).toBeInstanceOf(ProtobufExporter);
    } finally {
      vi.unstubAllEnvs();
    }
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

  it("hands export failures to onError and carries on, so a receiver that comes back gets the later spans", async () => {
    receiver = await startOtlpReceiver();
    const sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }] } });
    try {
      const log = new EventLog({ registry: createAgentRegistry() });
      const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
      const exporter = createSpanExporter({ endpoint: receiver.url, protocol: "http/json" });
      const errors: unknown[] = [];
      const live = exportLive(log, exporter, { sessionId: "flaky", retry: { retries: 0 }, onError: (error) => errors.push(error) });
      const agent = new Agent({ log, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief." });
      receiver.refuseNext(2, 400);
      await agent.run("First.");
      await live.stop();
      expect(errors.map((error) => (error as { code: string }).code)).toEqual(["OTEL_EXPORT_FAILED", "OTEL_EXPORT_FAILED"]);
      const again = exportLive(log, exporter, { sessionId: "flaky", retry: { retries: 0 }, onError: (error) => errors.push(error) });
      await agent.run("Second.");
      expect(await again.stop()).toBe(4);
      expect(receiver.spans.map((span) => span.name)).toEqual(["chat sim-1", "invoke_agent", "chat sim-1", "invoke_agent"]);
      await exporter.shutdown();
    } finally {
      await sim.close();
    }
  });

  it("on a resumed session sends from the seq it is told, finishing what an earlier event opened", async () => {
    receiver = await startOtlpReceiver();
    const sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }] } });
    try {
      const log = new EventLog({ registry: createAgentRegistry() });
      const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
      const agent = new Agent({ log, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief." });
      await agent.run("First.");
      const exporter = createSpanExporter({ endpoint: receiver.url, protocol: "http/json" });
      // Told to start at the log's end: nothing of the first turn is sent again.
      const resumed = exportLive(log, exporter, { sessionId: "resumed", from: log.length });
      await agent.run("Second.");
      expect(await resumed.stop()).toBe(2);
      const all = await sessionSpans(log.slice(), { sessionId: "resumed" });
      expect(sorted(receiver.spans)).toEqual(sorted(all.slice(2).map(onTheWire) as ReceivedSpan[]));
      // Started inside a turn, it still sends the turn's span: the event at `from` ends it.
      const turnEnd = log.slice().filter((event) => event.type === "turn/end").at(-1)!.seq;
      receiver.spans.length = 0;
      const mid = exportLive(log, exporter, { sessionId: "resumed", from: turnEnd });
      expect(await mid.stop()).toBe(1);
      expect(receiver.spans.map((span) => span.name)).toEqual(["invoke_agent"]);
      await exporter.shutdown();
    } finally {
      await sim.close();
    }
  });

  it("sends a batch again through a short outage, and by default warns of a batch it drops, never throwing", async () => {
    receiver = await startOtlpReceiver();
    const sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }] } });
    const warned: unknown[] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((line: unknown) => void warned.push(line));
    try {
      const log = new EventLog({ registry: createAgentRegistry() });
      const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
      const exporter = createSpanExporter({ endpoint: receiver.url, protocol: "http/json" });
      const agent = new Agent({ log, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief." });
      receiver.refuseNext(2, 400);
      const live = exportLive(log, exporter, { sessionId: "outage", retry: { baseDelayMs: 1 } });
      await agent.run("First.");
      expect(await live.stop()).toBe(2);
      expect(warned).toEqual([]);
      receiver.refuseNext(1000, 400);
      const down = exportLive(log, exporter, { sessionId: "outage", retry: { retries: 1, baseDelayMs: 1 } });
      await agent.run("Second.");
      expect(await down.stop()).toBe(0);
      expect(warned.length).toBeGreaterThan(0);
      for (const line of warned) expect(line).toMatch(/^dsh-otel: the OTLP receiver did not take \d+ span\(s\): .+; dropped them after the retries, the export goes on$/);
      await exporter.shutdown();
    } finally {
      warn.mockRestore();
      await sim.close();
    }
  });

  it("follows on past a batch the receiver never takes when told where to report it, and stops with it when not", async () => {
    receiver = await startOtlpReceiver();
    const exporter = createSpanExporter({ endpoint: receiver.url, protocol: "http/json" });
    async function* batches() {
      for (let at = 0; at < recorded.events.length; at += 3) yield recorded.events.slice(at, at + 3);
    }
    receiver.refuseNext(2, 400);
    const errors: unknown[] = [];
    const sent = await followSession(batches(), exporter, { sessionId: "s1", retry: { retries: 1, baseDelayMs: 1 }, onError: (error) => errors.push(error) });
    expect(errors).toEqual([expect.objectContaining({ code: "OTEL_EXPORT_FAILED", message: expect.stringMatching(/dropped them after the retries, the export goes on$/), cause: expect.objectContaining({ code: "OTEL_EXPORT_FAILED" }) })]);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBe(receiver.spans.length);
    receiver.refuseNext(2, 400);
    await expect(followSession(batches(), exporter, { sessionId: "s1", retry: { retries: 1, baseDelayMs: 1 } })).rejects.toMatchObject({ code: "OTEL_EXPORT_FAILED" });
    // A failure that is not the receiver's (an exporter that throws) is neither retried nor reworded.
    const broken = new TypeError("not today");
    let tries = 0;
    const throwing = { export: () => { tries++; throw broken; }, shutdown: async () => undefined };
    const heard: unknown[] = [];
    await followSession(batches(), throwing, { sessionId: "s1", retry: { retries: 3, baseDelayMs: 1 }, onError: (error) => heard.push(error) });
    expect(heard.length).toBe(tries);
    for (const error of heard) expect(error).toBe(broken);
    await exporter.shutdown();
  });

  it("follows batches as a store delivers them, giving the spans of the whole log", async () => {
    receiver = await startOtlpReceiver();
    const exporter = createSpanExporter({ endpoint: receiver.url, protocol: "http/json" });
    async function* batches() {
      for (let at = 0; at < recorded.events.length; at += 3) yield recorded.events.slice(at, at + 3);
    }
    expect(await followSession(batches(), exporter, { sessionId: "s1", resource: spanResource("dsh") })).toBe(9);
    expect(sorted(receiver.spans)).toEqual(sorted((await sessionSpans(recorded.events, { sessionId: "s1" })).map(onTheWire) as ReceivedSpan[]));
    // From a seq on, as a resumed follower would: only the spans the events from there finish.
    const lastEnd = recorded.events.filter((event) => event.type === "turn/end").at(-1)!.seq;
    receiver.spans.length = 0;
    expect(await followSession(batches(), exporter, { sessionId: "s1", from: lastEnd })).toBe(1);
    expect(receiver.spans.map((span) => span.name)).toEqual(["invoke_agent"]);
    await exporter.shutdown();
  });
});
