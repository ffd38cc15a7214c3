import { isDefaultExportSpan } from "@langfuse/otel";
import fc from "fast-check";
import type { LogEvent } from "dsh-log";
import { beforeAll, describe, expect, it } from "vitest";
import { spanResource, toReadableSpan } from "./export.js";
import { spanIdOf, traceIdOf } from "./ids.js";
import { SpanProjector, projectSpans } from "./projector.js";
import type { SpanRecord } from "./span.js";
import { inputMessagesSchema, outputMessagesSchema, systemInstructionsSchema, toolDefinitionsSchema } from "./test-support/conventions.js";
import { recordSessions, type RecordedSessions } from "./test-support/session.js";

// The session is recorded once; the spans are projected inside each test, so that mutation testing,
// which activates a mutant per test, sees the projection run under it.
let recorded: RecordedSessions;
beforeAll(async () => {
  recorded = await recordSessions();
});

const project = () => projectSpans(recorded.events, { sessionId: "s1" }).map(({ span }) => span);
const ofType = (type: string) => recorded.events.filter((event) => event.type === type);
const byOperation = (operation: string, spans = project()) => spans.filter((span) => span.attributes["gen_ai.operation.name"] === operation);
const data = <T>(event: LogEvent) => event.data as T;

describe("projectSpans", () => {
  it("gives one chat span per request, one execute_tool span per tool call and one invoke_agent span per turn", () => {
    expect(byOperation("chat").map((span) => span.attributes["dsh.seq"])).toEqual(ofType("request/dispatch").map((event) => event.seq));
    expect(byOperation("execute_tool").map((span) => span.attributes["dsh.seq"])).toEqual(ofType("tool/result").map((event) => event.seq));
    expect(byOperation("invoke_agent").map((span) => span.attributes["dsh.seq"])).toEqual(ofType("turn/start").map((event) => event.seq));
    expect(project()).toHaveLength(ofType("request/dispatch").length + ofType("tool/result").length + ofType("turn/start").length);
    expect(byOperation("chat").map((span) => span.name)).toEqual(["chat sim-1", "chat sim-1", "chat sim-2", "chat sim-2"]);
    expect(byOperation("chat").every((span) => span.kind === "client")).toBe(true);
    expect(byOperation("invoke_agent").every((span) => span.kind === "internal" && span.name === "invoke_agent" && span.parentSpanId === undefined)).toBe(true);
  });

  it("carries each request's usage exactly as logged, cache reads and writes under the conventions' names", () => {
    const usages = ofType("step/end").map((event) => data<{ usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } }>(event).usage);
    expect(byOperation("chat").map((span) => [
      span.attributes["gen_ai.usage.input_tokens"],
      span.attributes["gen_ai.usage.output_tokens"],
      span.attributes["gen_ai.usage.cache_read.input_tokens"],
      span.attributes["gen_ai.usage.cache_creation.input_tokens"],
      span.attributes["gen_ai.usage.cache_write.input_tokens"],
    ])).toEqual(usages.map((usage) => [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens, usage.cacheWriteTokens]));
    expect(usages.some((usage) => usage.cacheReadTokens > 0)).toBe(true);
    // A turn's span sums its requests.
    const [first] = byOperation("invoke_agent");
    expect(first!.attributes["gen_ai.usage.input_tokens"]).toBe(usages[0]!.inputTokens + usages[1]!.inputTokens);
    expect(first!.attributes["gen_ai.usage.cache_read.input_tokens"]).toBe(usages[0]!.cacheReadTokens + usages[1]!.cacheReadTokens);
  });

  it("derives every id from the session and the seq of the event that opened the span, and nests requests and tool calls under their turn", () => {
    const spans = project();
    const turns = byOperation("invoke_agent", spans);
    for (const span of spans) expect(span.spanId).toBe(spanIdOf("s1", span.attributes["dsh.seq"] as number));
    for (const turn of turns) expect(turn.traceId).toBe(traceIdOf("s1", turn.attributes["dsh.seq"] as number));
    for (const span of [...byOperation("chat", spans), ...byOperation("execute_tool", spans)]) {
      const turn = turns.find((candidate) => candidate.attributes["dsh.turn"] === span.attributes["dsh.turn"])!;
      expect([span.traceId, span.parentSpanId]).toEqual([turn.traceId, turn.spanId]);
    }
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
    expect(spanIdOf("s1", 5)).toMatch(/^[0-9a-f]{16}$/);
    expect(traceIdOf("s1", 5)).toMatch(/^[0-9a-f]{32}$/);
    expect(spanIdOf("s2", 5)).not.toBe(spanIdOf("s1", 5));
    expect(projectSpans(recorded.events, { sessionId: "s1" }).map(({ span }) => span)).toEqual(spans);
  });

  it("names the request settings, the answer and the session as the conventions do", () => {
    const [chat] = byOperation("chat");
    expect(chat!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "sim",
      "gen_ai.request.model": "sim-1",
      "gen_ai.conversation.id": "s1",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "dsh.session.id": "s1",
      "dsh.turn": 0,
      "dsh.step": 0,
      "dsh.request.sent": true,
      "dsh.content.ref": `dsh:s1/${chat!.attributes["dsh.seq"]}`,
    });
    expect(chat!.startMs).toBe(ofType("request/dispatch")[0]!.time);
    expect(chat!.endMs).toBe(ofType("step/end")[0]!.time);
  });

  it("attributes a cache break to the logged change, with its seq, and records a retried attempt as a span event", () => {
    const chats = byOperation("chat");
    const change = ofType("request/header").find((event) => data<{ reason: string }>(event).reason === "change")!;
    expect(chats.map((span) => span.attributes["dsh.cache.break_causes"])).toEqual([undefined, undefined, ["model"], undefined]);
    expect(chats[2]!.attributes["dsh.cache.break_cause_seqs"]).toEqual([change.seq]);
    const retry = ofType("request/retry")[0]!;
    expect(chats[1]!.events).toEqual([{ name: "dsh.request.retry", timeMs: retry.time, attributes: { "dsh.attempt": 1, "dsh.delay_ms": data<{ delayMs: number }>(retry).delayMs, "error.type": "LLM_SERVER_ERROR" } }]);
  });

  it("marks a failed tool call with its error code and leaves a successful one unset", () => {
    const tools = byOperation("execute_tool");
    expect(tools.map((span) => [span.name, span.attributes["error.type"], span.status.code])).toEqual([
      ["execute_tool lookup", undefined, "unset"],
      ["execute_tool lookup", "TOOL_FAILED", "error"],
    ]);
    expect(tools[0]!.attributes).toMatchObject({ "gen_ai.tool.type": "function", "gen_ai.tool.call.id": data<{ callId: string }>(ofType("tool/result")[0]!).callId });
    expect(tools[0]!.startMs).toBe(ofType("assistant/message")[0]!.time);
  });

  it("links a resumed turn to the turn before it", () => {
    const turns = byOperation("invoke_agent");
    expect(turns.map((turn) => turn.links.map((link) => link.attributes["dsh.link.reason"]))).toEqual([[], [], ["resume"]]);
    expect(turns[2]!.links[0]).toMatchObject({ traceId: turns[1]!.traceId, spanId: turns[1]!.spanId });
  });

  it("leaves a fork's seed to the parent's spans and links the fork's first turn to the parent's last", () => {
    const { events, seedLength } = recorded.fork;
    const forked = projectSpans(events, { sessionId: "f1", parent: { sessionId: "s1", seedLength } }).map(({ span }) => span);
    expect(forked.map((span) => span.name)).toEqual(["chat sim-1", "invoke_agent"]);
    expect(forked.every((span) => (span.attributes["dsh.seq"] as number) >= seedLength)).toBe(true);
    const parentTurn = byOperation("invoke_agent")[0]!;
    expect(forked[1]!.links).toEqual([{ traceId: parentTurn.traceId, spanId: parentTurn.spanId, attributes: { "dsh.link.reason": "fork", "dsh.session.id": "s1" } }]);
  });

  it("puts no prompt, answer or tool text on a span unless asked", () => {
    const spans = project();
    const text = JSON.stringify(spans);
    for (const secret of ["Be brief.", "What is a?", "value of a", "a is known.", "no such key", "missing"]) expect(text).not.toContain(secret);
    expect(spans.some((span) => Object.keys(span.attributes).some((key) => key.startsWith("gen_ai.input") || key.startsWith("gen_ai.output") || key.startsWith("gen_ai.system") || key.startsWith("gen_ai.tool.call.a") || key.startsWith("gen_ai.tool.call.r")))).toBe(false);
  });

  it("with content, records messages in the shape of the conventions' JSON schemas", () => {
    const withContent = projectSpans(recorded.events, { sessionId: "s1", content: true }).map(({ span }) => span);
    const chats = withContent.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    const parse = (span: SpanRecord, key: string) => JSON.parse(span.attributes[key] as string) as unknown;
    for (const chat of chats) {
      expect(systemInstructionsSchema.parse(parse(chat, "gen_ai.system_instructions"))).toEqual([{ type: "text", content: "Be brief." }]);
      inputMessagesSchema.parse(parse(chat, "gen_ai.input.messages"));
      outputMessagesSchema.parse(parse(chat, "gen_ai.output.messages"));
      toolDefinitionsSchema.parse(parse(chat, "gen_ai.tool.definitions"));
    }
    expect(parse(chats[0]!, "gen_ai.input.messages")).toEqual([{ role: "user", parts: [{ type: "text", content: "What is a?" }] }]);
    const calls = parse(chats[0]!, "gen_ai.output.messages") as { parts: { type: string; arguments: unknown }[]; finish_reason: string }[];
    expect(calls[0]!.finish_reason).toBe("tool_calls");
    expect(calls[0]!.parts.map((part) => [part.type, part.arguments])).toEqual([["tool_call", { key: "a" }], ["tool_call", { key: "missing" }]]);
    const secondInput = parse(chats[1]!, "gen_ai.input.messages") as { role: string; parts: { type: string; response?: unknown }[] }[];
    expect(secondInput.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(secondInput[2]!.parts[0]).toMatchObject({ type: "tool_call_response", response: "value of a" });
    const tools = withContent.filter((span) => span.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(tools.map((span) => [span.attributes["gen_ai.tool.call.arguments"], span.attributes["gen_ai.tool.call.result"]])).toEqual([
      ['{"key":"a"}', "value of a"],
      ['{"key":"missing"}', undefined],
    ]);
  });

  it("gives the same spans whatever batches the events arrive in, as a live follow does", () => {
    const spans = project();
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 40 }), (sizes) => {
        const projector = new SpanProjector({ sessionId: "s1" });
        const live: SpanRecord[] = [];
        let at = 0;
        for (let i = 0; at < recorded.events.length; i++) {
          const batch = recorded.events.slice(at, at + sizes[i % sizes.length]!);
          at += batch.length;
          for (const event of batch) live.push(...projector.push(event).map(({ span }) => span));
        }
        expect(live).toEqual(spans);
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 50) },
    );
  });

  it("gives spans the Langfuse span processor's default filter keeps", () => {
    const resource = spanResource();
    const spans = project();
    expect(spans.every((span) => isDefaultExportSpan(toReadableSpan(span, resource)))).toBe(true);
  });
});
