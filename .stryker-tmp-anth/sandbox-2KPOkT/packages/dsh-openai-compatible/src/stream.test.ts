import { streamOfReads } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import type { StreamChunk } from "dsh-llm";
import { parseChatCompletionStream } from "./stream.js";

/** An SSE body of `events` (JSON values, or raw data text), delivered in two reads split mid-event. */
function body(events: readonly (object | string)[]): ReadableStream<Uint8Array> {
  const text = events.map((event) => `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`).join("");
  return streamOfReads(new TextEncoder().encode(text), 30);
}

async function collect(events: readonly (object | string)[]): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of parseChatCompletionStream(body(events), 5_000)) chunks.push(chunk);
  return chunks;
}

const delta = (value: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: value, finish_reason: finish }] });

describe("parseChatCompletionStream, chunk by chunk", () => {
  it("yields exactly what each chunk means: reasoning, text, tool-call pieces, the finish reason, usage", async () => {
    expect(
      await collect([
        delta({ role: "assistant", content: "", reasoning_content: "" }),
        delta({ reasoning_content: "think" }),
        delta({ content: "Hi", reasoning_content: null }),
        delta({ content: null, tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: '{"a"' } }] }),
        delta({ tool_calls: [{ index: 0, id: null, function: { arguments: ":1}" } }] }),
        delta({ tool_calls: [{ index: 1 }] }),
        { choices: [] },
        delta({}, "tool_calls"),
        { choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, prompt_cache_hit_tokens: 8 } },
        { choices: [], usage: null },
        "[DONE]",
      ]),
    ).toEqual([
      { type: "reasoning-delta", text: "think" },
      { type: "text-delta", text: "Hi" },
      { type: "tool-call-delta", index: 0, callId: "c1", name: "read", argumentsDelta: '{"a"' },
      { type: "tool-call-delta", index: 0, argumentsDelta: ":1}" },
      { type: "tool-call-delta", index: 1, argumentsDelta: "" },
      { type: "finish", reason: "tool-calls" },
      { type: "usage", usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 8, cacheWriteTokens: 0 } },
    ]);
  });

  it.each([
    ["stop", "stop"],
    ["length", "length"],
    ["function_call", "tool-calls"],
    ["content_filter", "content-filter"],
    ["something_new", "other"],
  ])("maps the finish reason %s to %s", async (wire, reason) => {
    expect(await collect([delta({ content: "x" }, wire), "[DONE]"])).toEqual([
      { type: "text-delta", text: "x" },
      { type: "finish", reason },
    ]);
  });

  it("refuses malformed chunks with a message naming what is wrong", async () => {
    await expect(collect(["{not json"])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "unreadable stream chunk: {not json", retryable: true });
    await expect(collect([delta({ tool_calls: [{ id: "c", function: { name: "t" } }] })])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "a tool-call delta has no index" });
    await expect(collect([delta({ tool_calls: [{ index: 2, id: 7 }] })])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "tool call 2 has a non-string id 7" });
    await expect(collect([{ error: { message: "overloaded" } }])).rejects.toMatchObject({ code: "LLM_SERVER_ERROR", message: "the provider reported an error mid-stream: overloaded" });
    await expect(collect([{ error: {} }])).rejects.toMatchObject({ message: "the provider reported an error mid-stream: unknown" });
  });

  it("reports a body that ends before a finish reason as interrupted, even after [DONE] or a usage chunk", async () => {
    const interrupted = { code: "LLM_STREAM_INTERRUPTED", message: "the stream ended before the model finished", retryable: true };
    await expect(collect([delta({ content: "partial" })])).rejects.toMatchObject(interrupted);
    await expect(collect([delta({ content: "partial" }), "[DONE]"])).rejects.toMatchObject(interrupted);
    await expect(collect([{ choices: [], usage: { prompt_tokens: 1 } }, "[DONE]"])).rejects.toMatchObject(interrupted);
  });

  it("stops reading at [DONE], whatever follows it", async () => {
    expect(await collect([delta({ content: "x" }, "stop"), "[DONE]", "{not json"])).toEqual([
      { type: "text-delta", text: "x" },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("decodes a character split between two reads", async () => {
    const bytes = new TextEncoder().encode(`data: ${JSON.stringify(delta({ content: "é😀" }, "stop"))}\n\ndata: [DONE]\n\n`);
    const stream = streamOfReads(bytes, bytes.indexOf(0xc3) + 1);
    const chunks: StreamChunk[] = [];
    for await (const chunk of parseChatCompletionStream(stream, 5_000)) chunks.push(chunk);
    expect(chunks[0]).toEqual({ type: "text-delta", text: "é😀" });
  });
});
