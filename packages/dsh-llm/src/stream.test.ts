import { describe, expect, it } from "vitest";
import { StreamAssembler, type StreamChunk } from "./stream.js";

function assemble(chunks: StreamChunk[]) {
  const assembler = new StreamAssembler();
  for (const chunk of chunks) assembler.push(chunk);
  return assembler.result();
}

describe("StreamAssembler", () => {
  it("merges deltas, keeps first-appearance order and accumulates tool calls by index", () => {
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 8, cacheWriteTokens: 0 };
    const result = assemble([
      { type: "reasoning-delta", text: "think" },
      { type: "reasoning-delta", text: "ing" },
      { type: "text-delta", text: "Hello" },
      { type: "tool-call-delta", index: 1, callId: "b", name: "list_dir", argumentsDelta: '{"pa' },
      { type: "tool-call-delta", index: 0, callId: "a", name: "read_file", argumentsDelta: "{}" },
      { type: "tool-call-delta", index: 1, argumentsDelta: 'th":"."}' },
      { type: "finish", reason: "tool-calls" },
      { type: "usage", usage },
    ]);
    expect(result).toEqual({
      content: [
        { type: "reasoning", text: "thinking" },
        { type: "text", text: "Hello" },
        { type: "tool-call", callId: "b", name: "list_dir", arguments: '{"path":"."}' },
        { type: "tool-call", callId: "a", name: "read_file", arguments: "{}" },
      ],
      finishReason: "tool-calls",
      usage,
    });
  });

  it("reports a stream that never finished as interrupted (retryable)", () => {
    expect(() => assemble([{ type: "text-delta", text: "Hel" }])).toThrowError(
      expect.objectContaining({ code: "LLM_STREAM_INTERRUPTED", retryable: true }),
    );
  });

  it.each<[string, StreamChunk[]]>([
    ["a tool call without an id", [{ type: "tool-call-delta", index: 0, name: "x", argumentsDelta: "" }]],
    [
      "a tool call that changes its id",
      [
        { type: "tool-call-delta", index: 0, callId: "a", name: "x", argumentsDelta: "" },
        { type: "tool-call-delta", index: 0, callId: "b", argumentsDelta: "" },
      ],
    ],
    ["text after finish", [{ type: "finish", reason: "stop" }, { type: "text-delta", text: "late" }]],
  ])("rejects %s as malformed", (_what, chunks) => {
    expect(() => assemble([...chunks, { type: "finish", reason: "stop" }])).toThrowError(
      expect.objectContaining({ code: "LLM_MALFORMED_STREAM" }),
    );
  });
});
