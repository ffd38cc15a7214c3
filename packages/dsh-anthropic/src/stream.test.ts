import { StreamAssembler, type StreamChunk } from "dsh-llm";
import { streamOfReads } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { mapAnthropicUsage, parseMessagesStream } from "./stream.js";

function body(events: object[], cut = false): ReadableStream<Uint8Array> {
  const text = events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
  // Two reads, split mid-event, as a network delivers them.
  return streamOfReads(new TextEncoder().encode(cut ? text.slice(0, text.length - 7) : text), 50);
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of parseMessagesStream(stream, 5_000)) chunks.push(chunk);
  return chunks;
}

const start = { type: "message_start", message: { usage: { input_tokens: 12, cache_read_input_tokens: 3000, cache_creation_input_tokens: 400, cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 0 }, output_tokens: 1 } } };

describe("parseMessagesStream", () => {
  it("turns every event of a tool-use answer into chunks the assembler folds into the logged content", async () => {
    const chunks = await collect(
      body([
        start,
        { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Look " } },
        { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "first." } },
        { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2ln" } },
        { type: "content_block_stop", index: 0 },
        { type: "content_block_start", index: 1, content_block: { type: "redacted_thinking", data: "ZW5j" } },
        { type: "content_block_stop", index: 1 },
        { type: "ping" },
        { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Listing." } },
        { type: "content_block_stop", index: 2 },
        { type: "content_block_start", index: 3, content_block: { type: "tool_use", id: "toolu_1", name: "list_dir", input: {} } },
        { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '{"10": 1, ' } },
        { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '"a": 2}' } },
        { type: "content_block_stop", index: 3 },
        { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 57 } },
        { type: "message_stop" },
      ]),
    );
    const assembler = new StreamAssembler();
    for (const chunk of chunks) assembler.push(chunk);
    expect(assembler.result()).toEqual({
      content: [
        { type: "reasoning", text: "Look first.", signature: "c2ln" },
        { type: "redacted-reasoning", data: "ZW5j" },
        { type: "text", text: "Listing." },
        { type: "tool-call", callId: "toolu_1", name: "list_dir", arguments: '{"10": 1, "a": 2}' },
      ],
      finishReason: "tool-calls",
      // input_tokens is the uncached remainder: the whole prompt is 12 + 3000 + 400.
      usage: { inputTokens: 3412, outputTokens: 57, cacheReadTokens: 3000, cacheWriteTokens: 400, cacheWrite5mTokens: 400, cacheWrite1hTokens: 0 },
    });
  });

  it("takes message_delta usage as cumulative: it replaces, never adds", async () => {
    const chunks = await collect(
      body([
        start,
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9, input_tokens: 20, cache_read_input_tokens: null } },
        { type: "message_delta", delta: {}, usage: { output_tokens: 10 } },
        { type: "message_stop" },
      ]),
    );
    expect(chunks).toEqual([
      { type: "usage", usage: { inputTokens: 3420, outputTokens: 10, cacheReadTokens: 3000, cacheWriteTokens: 400, cacheWrite5mTokens: 400, cacheWrite1hTokens: 0 } },
      { type: "finish", reason: "stop" },
    ]);
  });

  it.each([
    ["overloaded_error", { code: "LLM_SERVER_ERROR", retryable: true }],
    ["api_error", { code: "LLM_SERVER_ERROR", retryable: true }],
    ["rate_limit_error", { code: "LLM_RATE_LIMITED", retryable: true }],
    ["invalid_request_error", { code: "LLM_BAD_REQUEST", retryable: false }],
  ])("maps an %s event after HTTP 200 to a typed error", async (type, expected) => {
    await expect(collect(body([start, { type: "error", error: { type, message: "Overloaded" } }]))).rejects.toMatchObject({
      ...expected,
      message: `the provider reported an error mid-stream: ${type}: Overloaded`,
    });
  });

  it("reports a body that ends before message_stop as interrupted, and unknown events or blocks as malformed", async () => {
    await expect(collect(body([start, { type: "message_delta", delta: { stop_reason: "end_turn" } }, { type: "message_stop" }], true))).rejects.toMatchObject({
      code: "LLM_STREAM_INTERRUPTED",
      retryable: true,
    });
    await expect(collect(body([start, { type: "content_block_start", index: 0, content_block: { type: "server_tool_use" } }]))).rejects.toMatchObject({
      code: "LLM_MALFORMED_STREAM",
      message: "content block 0 has a type this adapter does not handle: server_tool_use",
    });
    await expect(collect(body([start, { type: "content_block_delta", index: 4, delta: { type: "signature_delta", signature: "x" } }]))).rejects.toMatchObject({
      code: "LLM_MALFORMED_STREAM",
    });
    await expect(collect(body([{ type: "surprise" }]))).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "unknown stream event surprise" });
  });

  it("leaves a thinking block that ended without a signature unsigned (so it is never sent back)", async () => {
    const chunks = await collect(
      body([
        start,
        { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "plain" } },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason: "max_tokens" } },
        { type: "message_stop" },
      ]),
    );
    expect(chunks.filter((chunk) => chunk.type !== "usage")).toEqual([{ type: "reasoning-delta", text: "plain", block: 0 }, { type: "finish", reason: "length" }]);
  });
});

describe("parseMessagesStream, event by event", () => {
  it("yields exactly the chunks each event means: nothing for pings, stops of text blocks or signature deltas until the block stops", async () => {
    const chunks = await collect(
      body([
        { type: "message_start" },
        { type: "ping" },
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "Hi" } },
        { type: "content_block_stop", index: 0 },
        { type: "content_block_start", index: 1, content_block: { type: "thinking", thinking: "pre", signature: "from-start" } },
        { type: "content_block_stop", index: 1 },
        { type: "content_block_start", index: 2, content_block: { type: "thinking", thinking: "" } },
        { type: "content_block_delta", index: 2, delta: { type: "signature_delta", signature: "ab" } },
        { type: "content_block_delta", index: 2, delta: { type: "signature_delta", signature: "cd" } },
        { type: "content_block_stop", index: 2 },
        { type: "message_delta" },
        { type: "message_stop" },
      ]),
    );
    expect(chunks).toEqual([
      { type: "text-delta", text: "Hi", block: 0 },
      { type: "reasoning-delta", text: "pre", block: 1 },
      { type: "reasoning-signature", signature: "from-start", block: 1 },
      { type: "reasoning-signature", signature: "abcd", block: 2 },
      { type: "usage", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: "finish", reason: "other" },
    ]);
  });

  it("decodes a character split between two reads", async () => {
    const text = `event: message_start\ndata: ${JSON.stringify({ type: "message_start" })}\n\nevent: x\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "é😀" } })}\n\ndata: {"type":"message_stop"}\n\n`;
    const bytes = new TextEncoder().encode(text);
    const stream = streamOfReads(bytes, bytes.indexOf(0xc3) + 1);
    expect((await collect(stream))[0]).toEqual({ type: "text-delta", text: "é😀", block: 0 });
  });

  it("names what is malformed: a tool_use block without id or name, a block event without an index, an error without details", async () => {
    for (const content_block of [{ type: "tool_use", name: "x" }, { type: "tool_use", id: "toolu_1" }]) {
      await expect(collect(body([start, { type: "content_block_start", index: 3, content_block }]))).rejects.toMatchObject({
        code: "LLM_MALFORMED_STREAM",
        message: "tool_use block 3 has no id or name",
      });
    }
    await expect(collect(body([start, { type: "content_block_stop" }]))).rejects.toMatchObject({ message: "a content_block_stop event has no block index" });
    await expect(collect(body([start, { type: "content_block_delta", index: 0, delta: { type: "citations_delta" } }]))).rejects.toMatchObject({
      message: "block 0 sent a delta this adapter does not handle: citations_delta",
    });
    await expect(collect(body([start, { type: "content_block_delta", index: 4, delta: { type: "signature_delta", signature: "x" } }]))).rejects.toMatchObject({
      message: "a signature arrived for block 4, which is not a thinking block",
    });
    await expect(collect(body([start, { type: "error" }]))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", message: "the provider reported an error mid-stream: error: unknown" });
    await expect(collect(body([start], true))).rejects.toMatchObject({ message: "the stream ended before message_stop" });
    const garbled = streamOfReads(new TextEncoder().encode("data: {not json\n\n"));
    await expect(collect(garbled)).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "unreadable stream event: {not json" });
    // Data that is JSON but no object is malformed too (it used to fail as a TypeError).
    const scalar = streamOfReads(new TextEncoder().encode("data: null\n\n"));
    await expect(collect(scalar)).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "a stream event is not an object: null" });
  });
});

describe("mapAnthropicUsage", () => {
  it("treats absent and null counts as zero and omits the lifetime split when the provider gives none", () => {
    expect(mapAnthropicUsage({ input_tokens: 5, output_tokens: null })).toEqual({ inputTokens: 5, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(mapAnthropicUsage({ cache_creation_input_tokens: 7, cache_creation: { ephemeral_1h_input_tokens: 7 } })).toEqual({
      inputTokens: 7,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 7,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 7,
    });
  });
});
