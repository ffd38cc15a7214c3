import type { LogEvent } from "dsh-log";
import { describe, expect, it } from "vitest";
import { contentText, timelineEntry } from "./timeline.js";

const event = (seq: number, type: string, data: object): LogEvent => ({ seq, type, time: 1000 + seq, data });
const label = (type: string, data: object) => {
  const entry = timelineEntry(event(7, type, data), undefined, undefined);
  return [entry.kind, entry.label];
};
const image = { digest: "sha256:ab", mediaType: "image/png", byteLength: 1, width: 1, height: 1 };

describe("timelineEntry", () => {
  it("labels every event the loop writes, with its kind", () => {
    expect(label("turn/start", { turn: 2 })).toEqual(["turn", "turn 2 starts"]);
    expect(label("turn/end", { turn: 2, reason: "completed" })).toEqual(["turn", "turn 2 ends: completed"]);
    expect(label("turn/end", { turn: 2, reason: "interrupted" })).toEqual(["interruption", "turn 2 ends: interrupted"]);
    expect(label("turn/end", { turn: 2, reason: "aborted" })).toEqual(["interruption", "turn 2 ends: aborted"]);
    expect(label("step/start", { turn: 0, step: 3 })).toEqual(["step", "step 3"]);
    expect(label("step/start", { turn: 0, step: 3, startsRequestSeries: true })).toEqual(["step", "step 3 (starts a request series)"]);
    expect(label("step/end", { turn: 0, step: 3, reason: "completed" })).toEqual(["step", "step 3 ends: completed"]);
    expect(label("step/end", { turn: 0, step: 3, reason: "aborted" })).toEqual(["interruption", "step 3 ends: aborted"]);
    expect(label("step/end", { turn: 0, step: 3, reason: "interrupted" })).toEqual(["interruption", "step 3 ends: interrupted"]);
    expect(label("step/reject", { turn: 0, step: 1, reason: "busy" })).toEqual(["step", "step 1 rejected: busy"]);
    expect(label("step/reject", { turn: 0, step: 1 })).toEqual(["step", "step 1 rejected"]);
    expect(label("request/dispatch", { turn: 1, step: 2 })).toEqual(["request", "request dispatched (turn 1 step 2)"]);
    expect(label("request/retry", { turn: 1, step: 2, attempt: 1, delayMs: 500, error: { code: "LLM_RATE_LIMITED", message: "m" } })).toEqual(["retry", "retry 1 after 500 ms: LLM_RATE_LIMITED"]);
    expect(label("system/message", { content: "p", source: "system-prompt" })).toEqual(["message", "system prompt"]);
    expect(label("system/message", { content: "p", source: "system-prompt", replaces: { start: 0, end: 0, generation: 1 } })).toEqual(["compaction", "system prompt (replaces seqs 0..0)"]);
    expect(label("user/message", { content: [{ type: "text", text: "hello\nsecond line" }], source: "user" })).toEqual(["message", "user: hello"]);
    expect(label("user/message", { content: [{ type: "text", text: "sum" }], source: "compaction", replaces: { start: 3, end: 9, generation: 2 } })).toEqual(["compaction", "compaction: sum (replaces seqs 3..9)"]);
    expect(label("assistant/message", { content: [{ type: "text", text: "a\nb" }, { type: "tool-call", callId: "c", name: "f", arguments: "{}" }], source: "model" })).toEqual(["message", "model: a b → f({})"]);
    expect(label("tool/result", { callId: "c", toolName: "f", content: [], isError: false, source: "tool" })).toEqual(["tool", "f result"]);
    expect(label("tool/result", { callId: "c", toolName: "f", content: [], isError: true, source: "tool" })).toEqual(["tool", "f result (error)"]);
    expect(label("tool/result", { callId: "c", toolName: "f", content: [], isError: false, source: "tool", replaces: { start: 5, end: 5, generation: 1 } })).toEqual(["trim", "f result trimmed (replaces seqs 5..5)"]);
    expect(label("compaction/start", { reason: "threshold", range: { start: 2, end: 8 } })).toEqual(["compaction", "compaction (threshold) of seqs 2..8"]);
    expect(label("compaction/summary", { provider: "p", model: "m", maxTokens: 1, range: { start: 2, end: 8 }, summary: "s" })).toEqual(["compaction", "summary by p/m"]);
    expect(label("compaction/end", { outcome: "completed", generation: 1 })).toEqual(["compaction", "compaction completed"]);
    expect(label("tool/intent", { turn: 0, step: 0, callId: "c", toolName: "pay" })).toEqual(["tool", "pay about to run (not safe to rerun: its intent is logged first)"]);
    expect(label("attachment/quarantine", { digest: "sha256:ab", code: "X", message: "m", nodes: [1] })).toEqual(["other", "attachment sha256:ab unreadable: quarantine proposed"]);
    expect(label("note/added", { text: "x" })).toEqual(["other", "note/added"]);
    expect(label("request/header", { reason: "change", startsSeries: true, header: { config: { provider: "p", model: "m" } } })).toEqual(["header", "header snapshot: change + series (p/m)"]);
    expect(label("request/header", { reason: "initial", header: { config: { provider: "p", model: "m" } } })).toEqual(["header", "header snapshot: initial (p/m)"]);
  });

  it("clips long labels and details, keeps the turn and request number, and marks the fork point", () => {
    const long = timelineEntry(event(3, "user/message", { content: [{ type: "text", text: "x".repeat(300) }], source: "user", turn: 4 }), 2, 4);
    expect(long.label).toBe(`user: ${"x".repeat(119)}… — fork point: this session continues from here`);
    expect(long).toMatchObject({ seq: 3, time: 1003, type: "user/message", turn: 4, request: 2, kind: "fork" });
    const big = timelineEntry(event(1, "note/added", { text: "y".repeat(5000) }), undefined, undefined);
    expect(big.detail).toHaveLength(4000);
    expect(big.detail.endsWith("…")).toBe(true);
    expect(big).not.toHaveProperty("turn");
    expect(big).not.toHaveProperty("request");
    expect(timelineEntry(event(1, "note/added", { text: "z" }), undefined, 5).kind).toBe("other");
    expect(timelineEntry(event(1, "note/added", { text: "z" }), undefined, undefined).detail).toBe('{\n  "text": "z"\n}');
  });
});

describe("contentText", () => {
  it("reads text, reasoning, images, tool calls and other blocks", () => {
    expect(contentText("plain")).toBe("plain");
    expect(contentText(7)).toBe("");
    expect(contentText([{ type: "text", text: "a" }, { type: "reasoning", text: "r" }, { type: "image", image }, { type: "tool-call", name: "f", arguments: "{}" }, { type: "redacted-reasoning" }])).toBe("a\nr\n[image sha256:ab]\n→ f({})\n[redacted-reasoning]");
  });

  it("names a provider's own item by its type, with a reasoning item's summary when it has one", () => {
    const reasoning = (summary: unknown) => ({ type: "provider-item", api: "openai-responses", item: { type: "reasoning", summary, encrypted_content: "x" } });
    expect(contentText([reasoning([]), reasoning([{ type: "summary_text", text: "Plan." }, { type: "summary_text", text: "Then act." }]), { type: "provider-item", item: {} }])).toBe("[reasoning]\n[reasoning: Plan. Then act.]\n[provider item]");
  });
});
