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
    expect(result).toStrictEqual({
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

  it("closes a reasoning block with its signature, so the next reasoning delta opens another, and keeps redacted reasoning in place", () => {
    const result = assemble([
      { type: "reasoning-signature", signature: "sig-0" },
      { type: "reasoning-delta", text: "first " },
      { type: "reasoning-delta", text: "thought" },
      { type: "reasoning-signature", signature: "sig-1" },
      { type: "reasoning-delta", text: "second" },
      { type: "reasoning-signature", signature: "sig-2" },
      { type: "reasoning-signature", signature: "sig-2b" },
      { type: "redacted-reasoning", data: "opaque" },
      { type: "reasoning-signature", signature: "sig-3" },
      { type: "tool-call-delta", index: 4, callId: "c", name: "read_file", argumentsDelta: "{}" },
      { type: "reasoning-delta", text: "unsigned" },
      { type: "finish", reason: "tool-calls" },
    ]);
    // Strict: an unsigned block has no signature key at all.
    expect(result.content).toStrictEqual([
      { type: "reasoning", text: "", signature: "sig-0" },
      { type: "reasoning", text: "first thought", signature: "sig-1" },
      { type: "reasoning", text: "second", signature: "sig-2" },
      { type: "reasoning", text: "", signature: "sig-2b" },
      { type: "redacted-reasoning", data: "opaque" },
      { type: "reasoning", text: "", signature: "sig-3" },
      { type: "tool-call", callId: "c", name: "read_file", arguments: "{}" },
      { type: "reasoning", text: "unsigned" },
    ]);
  });

  it("never merges an unsigned block into the next signed one: a signed block holds only the text its block streamed", () => {
    const result = assemble([
      // Block 0 is thinking the provider left unsigned; block 1 is signed; then two text blocks.
      { type: "reasoning-delta", text: "unsigned draft", block: 0 },
      { type: "reasoning-delta", text: "signed thought", block: 1 },
      { type: "reasoning-signature", signature: "sig-1", block: 1 },
      { type: "text-delta", text: "first", block: 2 },
      { type: "text-delta", text: " part", block: 2 },
      { type: "text-delta", text: "second", block: 3 },
      { type: "reasoning-signature", signature: "sig-4", block: 4 },
      { type: "finish", reason: "stop" },
    ]);
    expect(result.content).toStrictEqual([
      { type: "reasoning", text: "unsigned draft" },
      { type: "reasoning", text: "signed thought", signature: "sig-1" },
      { type: "text", text: "first part" },
      { type: "text", text: "second" },
      { type: "reasoning", text: "", signature: "sig-4" },
    ]);
  });

  it("refuses an answer holding half a character, which no provider would accept back", () => {
    expect(() => assemble([{ type: "text-delta", text: "ok 😀".slice(0, 4) }, { type: "finish", reason: "stop" }])).toThrow(
      expect.objectContaining({ code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("half of a character") }),
    );
  });

  it("signs the text or reasoning a thoughtSignature ends (Gemini), closing the block, and keeps a call's signature", () => {
    const result = assemble([
      { type: "reasoning-delta", text: "Plan" },
      { type: "reasoning-delta", text: " it", thoughtSignature: "ts-0" },
      { type: "reasoning-delta", text: "again" },
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo", thoughtSignature: "ts-1" },
      { type: "text-delta", text: "", thoughtSignature: "ts-2" },
      { type: "text-delta", text: "more" },
      { type: "tool-call-delta", index: 0, callId: "c", name: "f", argumentsDelta: "{}", thoughtSignature: "ts-3" },
      { type: "tool-call-delta", index: 0, argumentsDelta: "", thoughtSignature: "ts-3" },
      { type: "tool-call-delta", index: 1, callId: "d", name: "f", argumentsDelta: "{}" },
      { type: "finish", reason: "tool-calls" },
    ]);
    expect(result.content).toStrictEqual([
      { type: "reasoning", text: "Plan it", thoughtSignature: "ts-0" },
      { type: "reasoning", text: "again" },
      { type: "text", text: "Hello", thoughtSignature: "ts-1" },
      { type: "text", text: "", thoughtSignature: "ts-2" },
      { type: "text", text: "more" },
      { type: "tool-call", callId: "c", name: "f", arguments: "{}", thoughtSignature: "ts-3" },
      { type: "tool-call", callId: "d", name: "f", arguments: "{}" },
    ]);
    expect(() =>
      assemble([
        { type: "tool-call-delta", index: 0, callId: "c", name: "f", argumentsDelta: "{}", thoughtSignature: "a" },
        { type: "tool-call-delta", index: 0, argumentsDelta: "", thoughtSignature: "b" },
      ]),
    ).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM", message: "tool call 0 changed its signature mid-stream" }));
    expect(() => assemble([{ type: "text-delta", text: "x", thoughtSignature: "" }, { type: "finish", reason: "stop" }])).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM" }));
  });

  it("refuses an empty signature or empty redacted data as a malformed answer", () => {
    expect(() => assemble([{ type: "reasoning-delta", text: "x" }, { type: "reasoning-signature", signature: "" }, { type: "finish", reason: "stop" }])).toThrowError(
      expect.objectContaining({ code: "LLM_MALFORMED_STREAM" }),
    );
    expect(() => assemble([{ type: "redacted-reasoning", data: "" }, { type: "finish", reason: "stop" }])).toThrowError(
      expect.objectContaining({ code: "LLM_MALFORMED_STREAM" }),
    );
  });

  it("keeps a provider's item in place, and the item id of text and calls: text of another item opens another block", () => {
    const item = { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "enc" };
    expect(
      assemble([
        { type: "provider-item", api: "openai-responses", item },
        { type: "text-delta", text: "Hel", block: 1, itemId: "msg_1" },
        { type: "text-delta", text: "lo", block: 1, itemId: "msg_1" },
        { type: "text-delta", text: "!", block: 1, itemId: "msg_2" },
        { type: "text-delta", text: " plain", block: 1 },
        { type: "tool-call-delta", index: 0, callId: "c", name: "t", argumentsDelta: "{", itemId: "fc_1" },
        { type: "tool-call-delta", index: 0, argumentsDelta: "}", itemId: "fc_1" },
        { type: "tool-call-delta", index: 1, callId: "d", name: "t", argumentsDelta: "{}" },
        { type: "finish", reason: "tool-calls" },
      ]).content,
    ).toEqual([
      { type: "provider-item", api: "openai-responses", item },
      { type: "text", text: "Hello", itemId: "msg_1" },
      { type: "text", text: "!", itemId: "msg_2" },
      { type: "text", text: " plain" },
      { type: "tool-call", callId: "c", name: "t", arguments: "{}", itemId: "fc_1" },
      { type: "tool-call", callId: "d", name: "t", arguments: "{}" },
    ]);
  });

  it("keeps what the provider says of its answer, a later report completing an earlier one, also after the finish", () => {
    const result = assemble([
      { type: "response-info", responseId: "resp_1" },
      { type: "text-delta", text: "hi" },
      { type: "finish", reason: "stop" },
      { type: "response-info", cacheDiagnosis: { verdict: "miss", reason: "model_changed" } },
    ]);
    expect(result).toStrictEqual({ content: [{ type: "text", text: "hi" }], finishReason: "stop", usage: undefined, responseId: "resp_1", cacheDiagnosis: { verdict: "miss", reason: "model_changed" } });
    expect(assemble([{ type: "response-info", responseId: "a" }, { type: "response-info", responseId: "b" }, { type: "finish", reason: "stop" }]).responseId).toBe("b");
    expect(assemble([{ type: "finish", reason: "stop" }])).toStrictEqual({ content: [], finishReason: "stop", usage: undefined });
    expect(() => assemble([{ type: "response-info", responseId: "" }, { type: "finish", reason: "stop" }])).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM" }));
  });

  it("keeps the item id of a tool call named in any of its deltas", () => {
    const call = assemble([
      { type: "tool-call-delta", index: 0, callId: "c", name: "t", argumentsDelta: "{" },
      { type: "tool-call-delta", index: 0, argumentsDelta: "}", itemId: "fc_9" },
      { type: "finish", reason: "tool-calls" },
    ]).content[0];
    expect(call).toEqual({ type: "tool-call", callId: "c", name: "t", arguments: "{}", itemId: "fc_9" });
  });

  it("refuses a call whose item id changes mid-stream, and an item that is not JSON", () => {
    expect(() => assemble([{ type: "tool-call-delta", index: 0, callId: "c", name: "t", argumentsDelta: "", itemId: "fc_1" }, { type: "tool-call-delta", index: 0, argumentsDelta: "{}", itemId: "fc_2" }])).toThrowError(
      expect.objectContaining({ code: "LLM_MALFORMED_STREAM", message: "tool call 0 changed its item id mid-stream" }),
    );
    expect(() => assemble([{ type: "provider-item", api: "x", item: { n: Number.NaN } }, { type: "finish", reason: "stop" }])).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM" }));
    expect(() => assemble([{ type: "provider-item", api: "", item: {} }, { type: "finish", reason: "stop" }])).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM" }));
  });

  it("reports a stream that never finished as interrupted (retryable)", () => {
    expect(() => assemble([{ type: "text-delta", text: "Hel" }])).toThrowError(
      expect.objectContaining({ code: "LLM_STREAM_INTERRUPTED", retryable: true }),
    );
  });

  it.each<[string, StreamChunk[], string]>([
    ["a tool call without an id", [{ type: "tool-call-delta", index: 0, name: "x", argumentsDelta: "" }], "stream produced a tool call without an id or a name"],
    ["a tool call without a name", [{ type: "tool-call-delta", index: 0, callId: "a", argumentsDelta: "" }], "stream produced a tool call without an id or a name"],
    [
      "a tool call that changes its id",
      [
        { type: "tool-call-delta", index: 0, callId: "a", name: "x", argumentsDelta: "" },
        { type: "tool-call-delta", index: 0, callId: "b", argumentsDelta: "" },
      ],
      "tool call 0 changed its id mid-stream",
    ],
    [
      "a tool call that changes its name",
      [
        { type: "tool-call-delta", index: 2, callId: "a", name: "x", argumentsDelta: "" },
        { type: "tool-call-delta", index: 2, name: "y", argumentsDelta: "" },
      ],
      "tool call 2 changed its name mid-stream",
    ],
    [
      "two tool calls with one id",
      [
        { type: "tool-call-delta", index: 0, callId: "a", name: "x", argumentsDelta: "" },
        { type: "tool-call-delta", index: 1, callId: "a", name: "x", argumentsDelta: "" },
      ],
      "stream produced two tool calls with id a",
    ],
    ["text after finish", [{ type: "finish", reason: "stop" }, { type: "text-delta", text: "late" }], "stream sent text-delta after finish"],
  ])("rejects %s as malformed", (_what, chunks, message) => {
    expect(() => assemble([...chunks, { type: "finish", reason: "stop" }])).toThrowError(
      expect.objectContaining({ code: "LLM_MALFORMED_STREAM", message, retryable: true }),
    );
  });

  it.each<[string, StreamChunk[], RegExp]>([
    ["a numeric tool-call id", [{ type: "tool-call-delta", index: 0, callId: 7 as unknown as string, name: "x", argumentsDelta: "{}" }], /content\[0\]\.callId: /],
    ["negative usage", [{ type: "usage", usage: { inputTokens: -1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } }], /usage\.inputTokens: /],
    ["fractional usage", [{ type: "usage", usage: { inputTokens: 1, outputTokens: 0.5, cacheReadTokens: 0, cacheWriteTokens: 0 } }], /usage\.outputTokens: /],
    ["a tool name the vocabulary refuses", [{ type: "tool-call-delta", index: 0, callId: "a", name: 3 as unknown as string, argumentsDelta: "" }], /content\[0\]\.name: /],
  ])("refuses %s as a malformed answer (retryable), before anyone could log it", (_what, chunks, message) => {
    const attempt = () => assemble([...chunks, { type: "finish", reason: "stop" }]);
    expect(attempt).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM", retryable: true }));
    expect(attempt).toThrowError(message);
  });

  it("keeps id and name when later deltas repeat them or leave them empty, and ignores empty text", () => {
    const result = assemble([
      { type: "text-delta", text: "" },
      { type: "tool-call-delta", index: 0, callId: "a", name: "x", argumentsDelta: "{" },
      { type: "tool-call-delta", index: 0, callId: "a", name: "x", argumentsDelta: "" },
      { type: "tool-call-delta", index: 0, callId: "", name: "", argumentsDelta: "}" },
      { type: "reasoning-delta", text: "" },
      { type: "text-delta", text: "after" },
      { type: "finish", reason: "tool-calls" },
    ]);
    expect(result.content).toEqual([
      { type: "tool-call", callId: "a", name: "x", arguments: "{}" },
      { type: "text", text: "after" },
    ]);
    expect(result.usage).toBeUndefined();
  });

  it("keeps text and reasoning apart when they alternate", () => {
    const result = assemble([
      { type: "text-delta", text: "a" },
      { type: "reasoning-delta", text: "r" },
      { type: "text-delta", text: "b" },
      { type: "finish", reason: "stop" },
    ]);
    expect(result.content).toEqual([
      { type: "text", text: "a" },
      { type: "reasoning", text: "r" },
      { type: "text", text: "b" },
    ]);
  });

  it("reports a stream that never finished with its message", () => {
    expect(() => assemble([])).toThrowError("stream ended before the model finished");
  });
});
