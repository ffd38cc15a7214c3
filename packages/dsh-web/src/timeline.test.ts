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
  it("labels each event as dsh inspect prints it, with its kind", () => {
    expect(label("turn/end", { turn: 2, reason: "interrupted" })).toEqual(["interruption", "turn 2 ended: interrupted"]);
    expect(label("tool/result", { callId: "c", toolName: "f", content: [], isError: false, source: "tool", replaces: { start: 5, end: 5, generation: 1 } })).toEqual(["trim", 'tool f (replaces the messages logged at seqs 5..5): ""']);
    expect(label("note/added", { text: "x" })).toEqual(["other", "note/added"]);
  });

  it("links a tool result to the subagent session it ran, and a subagent session's first event to its parent at the answer that called it", () => {
    const child = { sessionId: "kid", events: 9, head: "a".repeat(64) };
    expect(timelineEntry(event(5, "tool/result", { callId: "c", toolName: "research", content: [], isError: false, source: "tool", child }), undefined, undefined).linked).toEqual({ sessionId: "kid", as: "subagent" });
    expect(timelineEntry(event(0, "session/parent", { sessionId: "mum", answerSeq: 4, callId: "c", toolName: "research" }), undefined, undefined).linked).toEqual({ sessionId: "mum", seq: 4, as: "parent" });
    expect(timelineEntry(event(5, "tool/result", { callId: "c", toolName: "t", content: [], isError: false, source: "tool" }), undefined, undefined)).not.toHaveProperty("linked");
    expect(timelineEntry(event(0, "session/parent", { sessionId: "mum" }), undefined, undefined)).not.toHaveProperty("linked");
  });

  it("clips long labels and details, keeps the turn and request number, and marks the fork point", () => {
    const long = timelineEntry(event(3, "user/message", { content: [{ type: "text", text: "x".repeat(300) }], source: "user", turn: 4 }), 2, 4);
    expect(long.label).toBe(`user [user]: "${"x".repeat(79)}…" — fork point: this session continues from here`);
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
