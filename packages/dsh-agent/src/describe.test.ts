import { requestHeaderEvent } from "dsh-header";
import type { EventDefinition, LogEvent } from "dsh-log";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { describeEvent, previewText } from "./describe.js";
import * as events from "./events.js";
import { sessionParentEvent } from "./session-parent.js";

/** An event as the log holds it: its data checked against its definition's schema first. */
function logged<Type extends string, Schema extends z.ZodType>(definition: EventDefinition<Type, Schema>, data: z.input<Schema>): LogEvent {
  return { seq: 7, type: definition.type, time: 1000, data: definition.schema.parse(data) };
}
const line = (event: LogEvent) => Object.values(describeEvent(event));
const error = { code: "LLM_RATE_LIMITED", message: "slow\ndown" };
const replaces = { start: 3, end: 9, generation: 2 };
const usage = { inputTokens: 100, outputTokens: 5, cacheReadTokens: 64, cacheWriteTokens: 0 };

describe("describeEvent", () => {
  it("says what each loop event is, how deep it sits, and whether it interrupted", () => {
    expect(line(logged(events.turnStartEvent, { turn: 2 }))).toEqual(["turn", 0, "turn 2"]);
    expect(line(logged(events.turnEndEvent, { turn: 2, reason: "completed" }))).toEqual(["turn", 0, "turn 2 ended: completed"]);
    expect(line(logged(events.turnEndEvent, { turn: 2, reason: "interrupted" }))).toEqual(["interruption", 0, "turn 2 ended: interrupted"]);
    expect(line(logged(events.turnEndEvent, { turn: 2, reason: "aborted" }))).toEqual(["interruption", 0, "turn 2 ended: aborted"]);
    expect(line(logged(events.stepStartEvent, { turn: 0, step: 3 }))).toEqual(["step", 1, "step 3"]);
    expect(line(logged(events.stepStartEvent, { turn: 0, step: 3, startsRequestSeries: true }))).toEqual(["step", 1, "step 3 (starts a request series)"]);
    expect(line(logged(events.stepEndEvent, { turn: 0, step: 3, reason: "completed" }))).toEqual(["step", 2, "step end: completed"]);
    expect(line(logged(events.stepEndEvent, { turn: 0, step: 3, reason: "completed", finishReason: "stop", usage }))).toEqual(["step", 2, "step end: completed (stop) — in 100, out 5, cache read 64"]);
    expect(line(logged(events.stepEndEvent, { turn: 0, step: 3, reason: "error", error }))).toEqual(["step", 2, "step end: error LLM_RATE_LIMITED"]);
    expect(line(logged(events.stepEndEvent, { turn: 0, step: 3, reason: "aborted" }))).toEqual(["interruption", 2, "step end: aborted"]);
    expect(line(logged(events.stepEndEvent, { turn: 0, step: 3, reason: "interrupted" }))).toEqual(["interruption", 2, "step end: interrupted"]);
    expect(line(logged(events.stepRejectEvent, { turn: 0, step: 1, reason: "busy" }))).toEqual(["step", 1, "step 1 rejected by agent/pre-step: busy"]);
    expect(line(logged(events.stepRejectEvent, { turn: 0, step: 1 }))).toEqual(["step", 1, "step 1 rejected by agent/pre-step"]);
    expect(line(logged(events.requestDispatchEvent, { turn: 1, step: 2 }))).toEqual(["request", 2, "request dispatched"]);
    expect(line(logged(events.requestRetryEvent, { turn: 1, step: 2, attempt: 1, delayMs: 500, error }))).toEqual(["retry", 2, "retry 1 after 500 ms: LLM_RATE_LIMITED slow down"]);
  });

  it("says what tools, compaction and quarantine did", () => {
    const call = { turn: 0, step: 0, callId: "c", toolName: "pay" };
    expect(line(logged(events.toolIntentEvent, call))).toEqual(["tool", 2, "pay about to run (not safe to rerun: its intent is logged first)"]);
    expect(line(logged(events.toolApprovalEvent, { ...call, allowed: true, by: "terminal" }))).toEqual(["tool", 2, "pay allowed by terminal"]);
    expect(line(logged(events.toolApprovalEvent, { ...call, allowed: false, by: "terminal", reason: "declined" }))).toEqual(["tool", 2, "pay denied by terminal: declined"]);
    expect(line(logged(events.attachmentQuarantineEvent, { digest: "sha256:ab", code: "ATTACHMENT_MISSING", message: "m", nodes: [1, 4] }))).toEqual(["other", 2, "quarantine proposed for sha256:ab (ATTACHMENT_MISSING), nodes at seqs 1, 4"]);
    expect(line(logged(events.compactionStartEvent, { reason: "threshold", range: { start: 2, end: 8 } }))).toEqual(["compaction", 1, "compaction (threshold) of nodes at seqs 2..8"]);
    const plans = [
      { plan: "now" as const, summaryUsd: 0.01, requestsUsd: [0.02, 0.03] },
      { plan: "never" as const, summaryUsd: 0, requestsUsd: [0.123456] },
    ];
    expect(line(logged(events.compactionForecastEvent, { measuredTokens: 900, range: { start: 2, end: 8 }, plans, choice: "now" }))).toEqual(["compaction", 1, "compaction forecast: now $0.06, never $0.1235; chose now"]);
    expect(line(logged(events.compactionSummaryEvent, { provider: "p", model: "m", maxTokens: 64, range: { start: 2, end: 8 }, summary: "s\n\nshort" }))).toEqual(["compaction", 2, 'summary by p/m (maxTokens 64): "s short"']);
    expect(line(logged(events.compactionEndEvent, { outcome: "completed", generation: 1 }))).toEqual(["compaction", 1, "compaction completed"]);
    expect(line(logged(events.compactionEndEvent, { outcome: "failed", error }))).toEqual(["compaction", 1, "compaction failed: LLM_RATE_LIMITED slow down"]);
  });

  it("shows messages with their source, what they replace, and each part of an answer", () => {
    expect(line(logged(systemMessageEvent, { content: "Be\nbrief.", source: "system-prompt" }))).toEqual(["message", 2, 'system prompt: "Be brief."']);
    expect(line(logged(systemMessageEvent, { content: "p", source: "system-prompt", replaces: { start: 0, end: 0, generation: 1 } }))).toEqual(["compaction", 2, 'system prompt (replaces the messages logged at seqs 0..0): "p"']);
    const image = { type: "image" as const, image: { digest: `sha256:${"a".repeat(64)}`, mediaType: "image/png" as const, byteLength: 1, width: 1, height: 1 } };
    expect(line(logged(userMessageEvent, { content: [{ type: "text", text: "hello\nthere " }, image], source: "user" }))).toEqual(["message", 2, 'user [user]: "hello there [image]"']);
    expect(line(logged(userMessageEvent, { content: [{ type: "text", text: "sum" }], source: "compaction", replaces }))).toEqual(["compaction", 2, 'user [compaction] (replaces the messages logged at seqs 3..9): "sum"']);
    const answer = [
      { type: "reasoning" as const, text: "abcd", signature: "sig" },
      { type: "reasoning" as const, text: "ab" },
      { type: "redacted-reasoning" as const, data: "x" },
      { type: "provider-item" as const, api: "openai-responses", item: { type: "reasoning", id: "r" } },
      { type: "provider-item" as const, api: "openai-responses", item: { id: "r" } },
      { type: "text" as const, text: "a\nb" },
      { type: "tool-call" as const, callId: "c", name: "f", arguments: '{ "x":\n1 }' },
    ];
    expect(line(logged(assistantMessageEvent, { content: answer, source: "model" }))).toEqual(["message", 2, 'assistant: (thinking 4 chars, signed) (thinking 2 chars) (redacted thinking) (openai-responses reasoning) (openai-responses item) "a b" → f { "x": 1 }']);
    expect(line(logged(assistantMessageEvent, { content: [], source: "model" }))).toEqual(["message", 2, "assistant: (empty)"]);
    expect(line(logged(toolResultEvent, { callId: "c", toolName: "f", content: [{ type: "text", text: "ok" }], isError: false, source: "tool" }))).toEqual(["tool", 2, 'tool f: "ok"']);
    expect(line(logged(toolResultEvent, { callId: "c", toolName: "f", content: [{ type: "text", text: "no" }], isError: true, source: "tool" }))).toEqual(["tool", 2, 'tool f ERROR: "no"']);
    expect(line(logged(toolResultEvent, { callId: "c", toolName: "f", content: [{ type: "text", text: "[trimmed]" }], isError: false, source: "tool", replaces: { start: 5, end: 5, generation: 1 } }))).toEqual(["trim", 2, 'tool f (replaces the messages logged at seqs 5..5): "[trimmed]"']);
  });

  it("shows a header snapshot's reason, its settings (adapter defaults marked) and its tools", () => {
    const header = { config: { provider: "p", model: "m", maxTokens: 4096 }, adapterDefaults: { maxTokens: 4096 }, tools: [{ name: "read", description: "r", parameters: { type: "object" } }, { name: "list", description: "l", parameters: { type: "object" } }] };
    expect(line(logged(requestHeaderEvent, { reason: "change", startsSeries: true, header }))).toEqual(["header", 2, 'header change + series: provider="p" model="m" maxTokens=4096 (adapter default); tools: read, list']);
    expect(line(logged(requestHeaderEvent, { reason: "initial", header: { config: { provider: "p", model: "m" } } }))).toEqual(["header", 2, 'header initial: provider="p" model="m"; tools: none']);
  });

  it("names a subagent's parent, and the child session a tool result links", () => {
    expect(line(logged(sessionParentEvent, { sessionId: "p", answerSeq: 4, callId: "c", toolName: "research" }))).toEqual(["other", 0, "subagent session of p: call c (research) of the answer at seq 4"]);
    const child = { sessionId: "kid", events: 9, head: "a".repeat(64) };
    expect(line(logged(toolResultEvent, { callId: "c", toolName: "research", content: [{ type: "text", text: "Tokyo." }], isError: false, source: "tool", child }))).toEqual(["tool", 2, 'tool research: "Tokyo." (subagent session kid, 9 events)']);
  });

  it("names an event of another package by its type", () => {
    expect(describeEvent({ seq: 1, type: "note/added", time: 1, data: { text: "x" } })).toEqual({ kind: "other", depth: 2, text: "note/added" });
  });
});

describe("previewText", () => {
  it("flattens whitespace and clips with an ellipsis", () => {
    expect(previewText("  a\n\n b\tc  ")).toBe("a b c");
    expect(previewText("word ".repeat(40), 20)).toBe("word word word word…");
  });

  it("looks at the start of a long text only, and still says it was cut", () => {
    expect(previewText(`start${" ".repeat(5000)}end`)).toBe("start…");
    expect(previewText(`${"x".repeat(10)}\n${"y".repeat(10_000)}`, 30)).toBe(`${"x".repeat(10)} ${"y".repeat(18)}…`);
    expect(previewText("z".repeat(4096), 5000)).toBe("z".repeat(4096));
    expect(previewText("z".repeat(4097), 5000)).toBe(`${"z".repeat(4096)}…`);
  });
});
