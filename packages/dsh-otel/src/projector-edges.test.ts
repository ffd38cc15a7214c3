import type { LogEvent } from "dsh-log";
import { describe, expect, it } from "vitest";
import { spanIdOf, traceIdOf } from "./ids.js";
import { projectSpans } from "./projector.js";

const H1 = { config: { provider: "deepseek", model: "m1" } };
const H2 = { config: { provider: "deepseek", model: "m2" } };
const ev = (type: string, data: unknown): Omit<LogEvent, "seq" | "time"> => ({ type, data: data as never });
function log(...events: Omit<LogEvent, "seq" | "time">[]): LogEvent[] {
  return events.map((event, seq) => ({ ...event, seq, time: 1000 + seq * 10 }));
}
const text = (t: string) => [{ type: "text", text: t }];

/** The first turn's opening, up to its first request: seqs 0 (turn) to 5 (dispatch). */
const opening = [
  ev("turn/start", { turn: 0 }),
  ev("step/start", { turn: 0, step: 0 }),
  ev("system/message", { content: "S", source: "system-prompt" }),
  ev("user/message", { content: text("U"), source: "user" }),
  ev("request/header", { reason: "initial", header: H1 }),
  ev("request/dispatch", { turn: 0, step: 0 }),
];

/** A turn whose call was denied, a system prompt replaced, a new series, stray ends, a resume between turns, a failed turn. */
const events = log(
  ...opening,
  ev("assistant/message", { content: [{ type: "tool-call", callId: "c1", name: "t", arguments: "{}" }], source: "model" }),
  ev("tool/approval", { turn: 0, step: 0, callId: "c1", toolName: "t", allowed: false, by: "policy" }),
  ev("tool/result", { callId: "c1", toolName: "t", content: text("Error [TOOL_DENIED]: no"), isError: true, source: "tool" }),
  ev("step/end", { turn: 0, step: 0, reason: "completed", finishReason: "tool-calls" }),
  ev("step/start", { turn: 0, step: 1 }),
  ev("system/message", { content: "S2", source: "system-prompt", replaces: { start: 2, end: 2, generation: 1 } }),
  ev("request/header", { reason: "series", header: H1 }),
  ev("request/dispatch", { turn: 0, step: 1 }),
  ev("request/retry", { turn: 0, step: 1, attempt: 1, delayMs: 5, error: { code: "LLM_SERVER_ERROR", message: "x" } }),
  ev("step/end", { turn: 0, step: 9, reason: "completed" }),
  ev("step/end", { turn: 0, step: 1, reason: "completed", usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } }),
  ev("turn/end", { turn: 5, reason: "completed" }),
  ev("turn/end", { turn: 0, reason: "completed" }),
  ev("request/header", { reason: "resume", header: H2 }),
  ev("turn/start", { turn: 1 }),
  ev("step/start", { turn: 1, step: 0 }),
  ev("user/message", { content: text("V"), source: "user" }),
  ev("request/dispatch", { turn: 1, step: 0 }),
  ev("step/end", { turn: 1, step: 0, reason: "error", error: { code: "LLM_AUTH", message: "no" } }),
  ev("turn/end", { turn: 1, reason: "error", error: { code: "LLM_AUTH", message: "no" } }),
);

describe("projectSpans on the less common paths", () => {
  const spans = () => projectSpans(events, { sessionId: "e", agentName: "helper" }).map(({ span }) => span);

  it("ends each span only at its own end event, and ignores stray ones", () => {
    expect(spans().map((span) => [span.name, span.attributes["dsh.seq"]])).toEqual([
      ["execute_tool t", 8],
      ["chat m1", 5],
      ["chat m1", 13],
      ["invoke_agent helper", 0],
      ["chat m2", 23],
      ["invoke_agent helper", 20],
    ]);
  });

  it("records the approval, the retry, the replaced system prompt and the new series as the causes of the next request", () => {
    const [tool, first, second] = spans();
    expect(tool!.attributes).toMatchObject({ "dsh.tool.approved": false, "dsh.tool.approved_by": "policy", "error.type": "TOOL_DENIED" });
    expect(first!.attributes).not.toHaveProperty("dsh.cache.break_causes");
    expect(second!.attributes).toMatchObject({ "dsh.cache.break_causes": ["system-prompt", "series"], "dsh.cache.break_cause_seqs": [11, 12] });
    expect(second!.events).toEqual([{ name: "dsh.request.retry", timeMs: 1140, attributes: { "dsh.attempt": 1, "dsh.delay_ms": 5, "error.type": "LLM_SERVER_ERROR" } }]);
    expect(second!.endMs).toBe(1160);
  });

  it("sums only the usage logged, names the turn's model after its first request, and links the turn after a resume", () => {
    const all = spans();
    const [firstTurn, secondTurn] = all.filter((span) => span.name.startsWith("invoke_agent"));
    expect(firstTurn!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 10, "gen_ai.request.model": "m1", "gen_ai.agent.name": "helper" });
    expect(secondTurn!.attributes).toMatchObject({ "gen_ai.request.model": "m2", "error.type": "LLM_AUTH" });
    expect(secondTurn!.attributes).not.toHaveProperty("gen_ai.usage.input_tokens");
    expect(secondTurn!.links).toEqual([{ traceId: traceIdOf("e", 0), spanId: spanIdOf("e", 0), attributes: { "dsh.link.reason": "resume", "dsh.session.id": "e" } }]);
    const resumed = all.find((span) => span.attributes["dsh.seq"] === 23)!;
    expect(resumed.attributes).toMatchObject({ "dsh.cache.break_causes": ["model"], "dsh.cache.break_cause_seqs": [19], "error.type": "LLM_AUTH" });
    expect([resumed.traceId, resumed.parentSpanId]).toEqual([traceIdOf("e", 20), spanIdOf("e", 20)]);
    expect(firstTurn!.links).toEqual([]);
  });

  it("gives a fork's first turn a link to the parent's last turn in the seed, not a resume link", () => {
    const fork = projectSpans(events, { sessionId: "f", parent: { sessionId: "e", seedLength: 19 } }).map(({ span }) => span);
    expect(fork.map((span) => span.attributes["dsh.seq"])).toEqual([23, 20]);
    expect(fork[1]!.links).toEqual([{ traceId: traceIdOf("e", 0), spanId: spanIdOf("e", 0), attributes: { "dsh.link.reason": "fork", "dsh.session.id": "e" } }]);
  });
});

describe("projectSpans on compactions", () => {
  const compactions = log(
    ...opening,
    ev("assistant/message", { content: text("A"), source: "model" }),
    ev("step/end", { turn: 0, step: 0, reason: "completed", finishReason: "stop" }),
    ev("compaction/start", { reason: "threshold", range: { start: 3, end: 6 }, measuredTokens: 900 }),
    ev("compaction/summary", { provider: "deepseek", model: "m1", maxTokens: 1024, range: { start: 3, end: 6 }, summary: "They said hello." }),
    ev("user/message", { content: text("Summary: they said hello."), source: "compaction", replaces: { start: 3, end: 6, generation: 1 } }),
    ev("compaction/end", { outcome: "completed", generation: 1 }),
    ev("turn/end", { turn: 0, reason: "completed" }),
    ev("compaction/start", { reason: "manual", range: { start: 10, end: 10 } }),
    ev("compaction/end", { outcome: "failed", error: { code: "AGENT_COMPACTION_EMPTY_SUMMARY", message: "no text" } }),
    ev("compaction/summary", { provider: "deepseek", model: "stray", maxTokens: 1, range: { start: 10, end: 10 }, summary: "stray" }),
    ev("compaction/end", { outcome: "failed", error: { code: "STRAY", message: "no start" } }),
    ev("turn/start", { turn: 1 }),
    ev("step/start", { turn: 1, step: 0 }),
    ev("user/message", { content: text("V"), source: "user" }),
    ev("request/dispatch", { turn: 1, step: 0 }),
    ev("step/end", { turn: 1, step: 0, reason: "completed" }),
    ev("turn/end", { turn: 1, reason: "completed" }),
  );

  it("gives each summary call a chat span: under its turn, or a root of its own between turns, failed ones as errors", () => {
    const spans = projectSpans(compactions, { sessionId: "c" }).map(({ span }) => span);
    expect(spans.map((span) => [span.name, span.attributes["dsh.seq"]])).toEqual([
      ["chat m1", 5],
      ["chat m1", 8],
      ["invoke_agent", 0],
      ["chat", 13],
      ["chat m1", 20],
      ["invoke_agent", 17],
    ]);
    const [, inTurn, turn, between, after] = spans;
    expect(inTurn).toMatchObject({ kind: "client", traceId: turn!.traceId, parentSpanId: turn!.spanId, startMs: 1080, endMs: 1110, status: { code: "unset" } });
    expect(inTurn!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "deepseek",
      "gen_ai.request.model": "m1",
      "gen_ai.request.max_tokens": 1024,
      "dsh.operation": "compaction",
      "dsh.compaction.reason": "threshold",
      "dsh.compaction.range": [3, 6],
    });
    expect(inTurn!.attributes).not.toHaveProperty("gen_ai.output.messages");
    // The summary replaced the messages: the next request's cache break names it.
    expect(after!.attributes).toMatchObject({ "dsh.cache.break_causes": ["messages"], "dsh.cache.break_cause_seqs": [10] });
    expect(between).toMatchObject({ traceId: traceIdOf("c", 13), parentSpanId: undefined, status: { code: "error", message: "AGENT_COMPACTION_EMPTY_SUMMARY" } });
    expect(between!.attributes).toMatchObject({ "error.type": "AGENT_COMPACTION_EMPTY_SUMMARY", "dsh.compaction.reason": "manual" });
    expect(between!.attributes).not.toHaveProperty("gen_ai.request.model");
  });

  it("puts the summary on the span only with content", () => {
    const withContent = projectSpans(compactions, { sessionId: "c", content: true }).map(({ span }) => span);
    expect(JSON.parse(withContent[1]!.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "They said hello." }], finish_reason: "stop" }]);
    expect(withContent[3]!.attributes).not.toHaveProperty("gen_ai.output.messages");
  });
});
