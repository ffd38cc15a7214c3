import type { StreamChunk } from "dsh-llm";
import { streamOfReads } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { mapResponsesUsage, parseResponsesStream, responsesDiagnosis } from "./stream.js";

/** An SSE body of `events` (objects with their `type`, or raw data text), delivered in reads split mid-event. */
function body(events: readonly (object | string)[]): ReadableStream<Uint8Array> {
  const text = events.map((event) => (typeof event === "string" ? `data: ${event}\n\n` : `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`)).join("");
  return streamOfReads(new TextEncoder().encode(text), 40, 41, 200);
}

async function collect(events: readonly (object | string)[]): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of parseResponsesStream(body(events), 5_000)) chunks.push(chunk);
  return chunks;
}

const reasoning = { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "enc" };
const message = (text: string, status = "completed") => ({ id: "msg_1", type: "message", status, role: "assistant", content: [{ type: "output_text", annotations: [], logprobs: [], text }] });
const call = { id: "fc_1", type: "function_call", status: "completed", arguments: '{"path":"."}', call_id: "call_1", name: "list_dir" };
const usage = { input_tokens: 2000, input_tokens_details: { cached_tokens: 1536 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 12 } };
const completed = { type: "response.completed", response: { id: "resp_1", status: "completed", usage } };
const textDelta = (delta: string, output = 1, part = 0) => ({ type: "response.output_text.delta", item_id: "msg_1", output_index: output, content_index: part, delta });

describe("parseResponsesStream", () => {
  it("streams text as it comes, takes reasoning and calls whole from their finished items, and ends with usage", async () => {
    expect(
      await collect([
        { type: "response.created", response: { id: "resp_1", status: "in_progress" } },
        { type: "response.output_item.added", output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } },
        { type: "response.output_item.done", output_index: 0, item: reasoning },
        { type: "response.output_item.added", output_index: 1, item: { ...message(""), content: [] } },
        textDelta("Hel"),
        textDelta("lo"),
        { type: "response.output_text.done", item_id: "msg_1", output_index: 1, content_index: 0, text: "Hello" },
        { type: "response.output_item.done", output_index: 1, item: message("Hello") },
        { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 2, delta: '{"pa' },
        { type: "response.output_item.done", output_index: 2, item: call },
        completed,
      ]),
    ).toEqual([
      { type: "response-info", responseId: "resp_1" },
      { type: "provider-item", api: "openai-responses", item: reasoning },
      { type: "text-delta", text: "Hel", block: 65536, itemId: "msg_1" },
      { type: "text-delta", text: "lo", block: 65536, itemId: "msg_1" },
      { type: "tool-call-delta", index: 0, callId: "call_1", name: "list_dir", argumentsDelta: '{"path":"."}', itemId: "fc_1" },
      { type: "usage", usage: { inputTokens: 2000, outputTokens: 40, cacheReadTokens: 1536, cacheWriteTokens: 0, reasoningTokens: 12 } },
      { type: "finish", reason: "tool-calls" },
    ]);
  });

  it("takes a message's text from its finished item when no delta carried it, and a refusal as its text, kept whole beside it", async () => {
    const refusal = { id: "msg_2", type: "message", status: "completed", role: "assistant", content: [{ type: "refusal", refusal: "I can't." }] };
    expect(await collect([{ type: "response.output_item.done", output_index: 0, item: message("Whole") }, { type: "response.output_item.done", output_index: 1, item: refusal }, completed])).toEqual([
      { type: "text-delta", text: "Whole", block: 0, itemId: "msg_1" },
      { type: "text-delta", text: "I can't.", block: 65536, itemId: "msg_2" },
      { type: "provider-item", api: "openai-responses", item: refusal },
      expect.objectContaining({ type: "usage" }),
      { type: "finish", reason: "stop" },
    ]);
  });

  it("keeps any other item (a compaction item, a built-in tool call) verbatim, for this API to get back", async () => {
    const other = { id: "cmp_1", type: "compaction", encrypted_content: "x" };
    expect((await collect([{ type: "response.output_item.done", output_index: 0, item: other }, completed]))[0]).toEqual({ type: "provider-item", api: "openai-responses", item: other });
  });

  it("refuses a message whose finished text differs from what its deltas streamed", async () => {
    await expect(collect([textDelta("Hel", 0), { type: "response.output_item.done", output_index: 0, item: message("Help") }, completed])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("other text") });
  });

  it.each([
    ["max_output_tokens", "length"],
    ["content_filter", "content-filter"],
    ["something_new", "other"],
  ])("maps an incomplete response (%s) to finish reason %s", async (reason, finish) => {
    const chunks = await collect([{ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason }, usage } }]);
    expect(chunks.at(-1)).toEqual({ type: "finish", reason: finish });
  });

  it("ends without usage when the response reports none", async () => {
    expect(await collect([{ type: "response.completed", response: { status: "completed", usage: null } }])).toEqual([{ type: "finish", reason: "stop" }]);
  });

  it.each([
    ["a failed response", [{ type: "response.failed", response: { error: { code: "server_error", message: "boom" } } }], { code: "LLM_SERVER_ERROR", retryable: true, message: expect.stringContaining("server_error: boom") }],
    ["a failed response the client caused", [{ type: "response.failed", response: { error: { code: "invalid_prompt", message: "no" } } }], { code: "LLM_SERVER_ERROR", retryable: false }],
    ["an error event", [{ type: "error", code: "server_error", message: "overloaded" }], { code: "LLM_SERVER_ERROR", message: expect.stringContaining("overloaded") }],
    ["an unreadable event", ["{not json"], { code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("unreadable") }],
    ["an event that is not an object", ["[1,2]"], { code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("not an object") }],
    ["a text delta without its item", [{ type: "response.output_text.delta", output_index: 0, content_index: 0, delta: "x" }], { code: "LLM_MALFORMED_STREAM" }],
    ["a finished item without its index", [{ type: "response.output_item.done", item: call }], { code: "LLM_MALFORMED_STREAM" }],
    ["a call without its call id", [{ type: "response.output_item.done", output_index: 0, item: { ...call, call_id: undefined } }], { code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("fc_1") }],
    ["a message without content", [{ type: "response.output_item.done", output_index: 0, item: { id: "m", type: "message" } }], { code: "LLM_MALFORMED_STREAM" }],
    ["a message part without text", [{ type: "response.output_item.done", output_index: 0, item: { id: "m", type: "message", content: [{ type: "output_text" }] } }], { code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("part 0") }],
    ["a body that ends before the response does", [{ type: "response.created", response: {} }], { code: "LLM_STREAM_INTERRUPTED", retryable: true }],
  ])("fails on %s", async (_what, events, expected) => {
    await expect(collect(events)).rejects.toMatchObject(expected);
  });

  it("ignores whatever follows the end of the response", async () => {
    expect(await collect([completed, textDelta("late", 0)])).toHaveLength(2);
  });

  it("maps usage that omits its details", () => {
    expect(mapResponsesUsage({ output_tokens_details: {} })).toStrictEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    // GPT-5.6 and later bill cache writes and report them beside the reads.
    expect(mapResponsesUsage({ input_tokens: 3000, input_tokens_details: { cached_tokens: 1024, cache_write_tokens: 1792 }, output_tokens: 5 })).toStrictEqual({ inputTokens: 3000, outputTokens: 5, cacheReadTokens: 1024, cacheWriteTokens: 1792 });
  });

  it("numbers text blocks by item and part, streams refusal deltas, and fills a later part from its finished item", async () => {
    const refusalDelta = { type: "response.refusal.delta", item_id: "msg_1", output_index: 0, content_index: 1, delta: "No." };
    const item = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "A" }, { type: "refusal", refusal: "No." }, { type: "output_text", text: "C" }] };
    expect(await collect([textDelta("A", 0, 0), refusalDelta, { type: "response.output_item.done", output_index: 0, item }, { type: "response.completed" }])).toEqual([
      { type: "text-delta", text: "A", block: 0, itemId: "msg_1" },
      { type: "text-delta", text: "No.", block: 1, itemId: "msg_1" },
      { type: "text-delta", text: "C", block: 2, itemId: "msg_1" },
      { type: "provider-item", api: "openai-responses", item },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("keeps whole a message that says more than its text: citations, log probabilities, another status, other fields; a plain one is text alone", async () => {
    const plain = { id: "m", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "A", annotations: [], logprobs: [] }, { type: "output_text", text: "B" }] };
    const richer = [
      { ...plain, content: [{ type: "output_text", text: "A", annotations: [{ type: "url_citation", url: "https://example.org" }] }] },
      { ...plain, content: [{ type: "output_text", text: "A", logprobs: [{ token: "A", logprob: 0 }] }] },
      { ...plain, content: [{ type: "output_text", text: "A", extra: 1 }] },
      { ...plain, status: "incomplete" },
      { ...plain, role: "user" },
      { ...plain, phase: "final_answer" },
    ];
    const kept = async (item: object) => (await collect([{ type: "response.output_item.done", output_index: 0, item }, completed])).filter((chunk) => chunk.type === "provider-item");
    expect(await kept(plain)).toEqual([]);
    for (const item of richer) expect(await kept(item)).toEqual([{ type: "provider-item", api: "openai-responses", item }]);
  });

  it("ends an incomplete response without details as other, and names what a failure lacks", async () => {
    expect((await collect([{ type: "response.incomplete", response: {} }])).at(-1)).toEqual({ type: "finish", reason: "other" });
    expect((await collect([{ type: "response.incomplete" }])).at(-1)).toEqual({ type: "finish", reason: "other" });
    await expect(collect([{ type: "response.failed" }])).rejects.toMatchObject({ message: "the response failed: unknown: ", retryable: false });
    await expect(collect([{ type: "response.failed", response: { error: { code: "rate_limit_exceeded" } } }])).rejects.toMatchObject({ retryable: true });
    await expect(collect([{ type: "error" }])).rejects.toMatchObject({ message: "the provider reported an error mid-stream: unknown: " });
    await expect(collect([])).rejects.toMatchObject({ message: "the stream ended before the response completed" });
  });

  it.each([
    ["a part index", { output_index: 0, item_id: "m", delta: "x" }],
    ["an output index", { content_index: 0, item_id: "m", delta: "x" }],
    ["its text", { output_index: 0, content_index: 0, item_id: "m", delta: 7 }],
    ["an item id", { output_index: 0, content_index: 0, delta: "x" }],
  ])("refuses a text delta without %s", async (_what, fields) => {
    await expect(collect([{ type: "response.output_text.delta", ...fields }])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("a text delta lacks its item, part or text") });
  });

  it.each([
    ["no item", { output_index: 0 }],
    ["an item without a type", { output_index: 0, item: { id: "x" } }],
    ["an id-less call", { output_index: 0, item: { ...call, id: 5 } }],
    ["a nameless call", { output_index: 0, item: { ...call, name: undefined } }],
    ["a call without arguments", { output_index: 0, item: { ...call, arguments: {} } }],
    ["a message without an id", { output_index: 0, item: { type: "message", content: [] } }],
    ["a message part that is null", { output_index: 0, item: { id: "m", type: "message", content: [null] } }],
    ["a message part that is a list", { output_index: 0, item: { id: "m", type: "message", content: [["text"]] } }],
  ])("refuses a finished item with %s", async (_what, fields) => {
    await expect(collect([{ type: "response.output_item.done", ...fields }])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM" });
  });

  it.each([["null"], ['"text"'], ["3"]])("refuses an event that is %s, not an object", async (data) => {
    await expect(collect([data])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: `a stream event is not an object: ${data}` });
  });

  it("ignores events after the end even when they arrive in the same read, and decodes characters split across reads", async () => {
    const text = `data: ${JSON.stringify(textDelta("é😀", 0))}\n\ndata: ${JSON.stringify(completed)}\n\ndata: ${JSON.stringify(textDelta("late", 0))}\n\n`;
    const bytes = new TextEncoder().encode(text);
    const at = bytes.indexOf(0xf0) + 2;
    const chunks: StreamChunk[] = [];
    for await (const chunk of parseResponsesStream(streamOfReads(bytes, at), 5_000)) chunks.push(chunk);
    expect(chunks).toEqual([{ type: "text-delta", text: "é😀", block: 0, itemId: "msg_1" }, expect.objectContaining({ type: "usage" }), { type: "finish", reason: "stop" }]);
  });
});

describe("responsesDiagnosis", () => {
  it("puts OpenAI's prompt-cache diagnostics in dsh's words, and passes the verdict on with the response's end", async () => {
    expect(responsesDiagnosis({ type: "cache_hit" })).toEqual({ verdict: "hit" });
    expect(responsesDiagnosis({ type: "cache_miss", reason: "tools_changed", cache_missed_tokens: 5629 })).toEqual({ verdict: "miss", reason: "tools_changed", missedTokens: 5629 });
    expect(responsesDiagnosis({ type: "cache_miss", cache_missed_tokens: -1 })).toStrictEqual({ verdict: "miss", reason: "unknown" });
    expect(responsesDiagnosis({ type: "comparison_response_not_found" })).toEqual({ verdict: "not-found", reason: "comparison_response_not_found" });
    expect(responsesDiagnosis({ type: "unavailable" })).toEqual({ verdict: "unavailable", reason: "unavailable" });
    expect(responsesDiagnosis({ type: "something_new" })).toBeUndefined();
    expect(responsesDiagnosis(null)).toBeUndefined();
    const end = { type: "response.completed", response: { id: "resp_2", prompt_cache_diagnostics: { type: "cache_miss", reason: "input_changed", cache_missed_tokens: 10 } } };
    expect(await collect([end])).toEqual([{ type: "response-info", cacheDiagnosis: { verdict: "miss", reason: "input_changed", missedTokens: 10 } }, { type: "finish", reason: "stop" }]);
    expect(await collect([{ type: "response.created", response: { id: "" } }, { type: "response.completed" }])).toEqual([{ type: "finish", reason: "stop" }]);
  });
});
