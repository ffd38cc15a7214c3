import { StreamAssembler, type StreamChunk } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { mapGeminiUsage, parseGeminiStream } from "./stream.js";

function body(chunks: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(`data: ${chunk}\r\n\r\n`));
      controller.close();
    },
  });
}

async function chunksOf(chunks: readonly string[]): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of parseGeminiStream(body(chunks), 5000)) out.push(chunk);
  return out;
}

async function answerOf(chunks: readonly string[]) {
  const assembler = new StreamAssembler();
  for (const chunk of await chunksOf(chunks)) assembler.push(chunk);
  return assembler.result();
}

const candidate = (parts: string, tail = "") => `{"candidates": [{"content": {"parts": [${parts}], "role": "model"}${tail}, "index": 0}], "responseId": "r1"}`;

describe("parseGeminiStream", () => {
  it("keeps thoughts, text and calls with their signatures, ids as Gemini gave them, raw arguments, and other parts verbatim", async () => {
    const answer = await answerOf([
      candidate('{"text": "Thinking", "thought": true}'),
      candidate('{"text": " more", "thought": true, "thoughtSignature": "S0"}'),
      candidate('{"text": "Hello "}, {"text": "there"}'),
      candidate('{"functionCall": {"id": "fc-1", "name": "f", "args": {"b": 1, "10": [], "2": {"z": 0, "1": 1}}}, "thoughtSignature": "S1"}, {"functionCall": {"name": "g"}}'),
      candidate('{"executableCode": {"language": "PYTHON", "code": "print(1)"}}, {"thoughtSignature": "S2"}'),
      candidate('{"text": ""}', ', "finishReason": "STOP"').replace('"responseId"', '"usageMetadata": {"promptTokenCount": 5000, "cachedContentTokenCount": 4096, "candidatesTokenCount": 7, "thoughtsTokenCount": 30, "totalTokenCount": 5037}, "responseId"'),
    ]);
    expect(answer.content).toEqual([
      { type: "reasoning", text: "Thinking more", thoughtSignature: "S0" },
      { type: "text", text: "Hello there" },
      { type: "tool-call", callId: "fc-1", itemId: "fc-1", name: "f", arguments: '{"b": 1, "10": [], "2": {"z": 0, "1": 1}}', thoughtSignature: "S1" },
      { type: "tool-call", callId: "r1-1", name: "g", arguments: "{}" },
      { type: "provider-item", api: "gemini", item: { executableCode: { language: "PYTHON", code: "print(1)" } } },
      { type: "provider-item", api: "gemini", item: { thoughtSignature: "S2" } },
    ]);
    expect(answer.finishReason).toBe("tool-calls");
    expect(answer.responseId).toBe("r1");
    expect(answer.usage).toEqual({ inputTokens: 5000, outputTokens: 37, cacheReadTokens: 4096, cacheWriteTokens: 0, reasoningTokens: 30 });
  });

  it("reads the first candidate only, and logs arguments holding a call's shape whole", async () => {
    const args = '{"wrapped": {"functionCall": {"name": "inner", "args": {"x": 1}}}}';
    const answer = await answerOf([
      `{"candidates": [{"content": {"parts": [{"functionCall": {"id": "a", "name": "f", "args": ${args}}}], "role": "model"}, "index": 0}, {"content": {"parts": [{"text": "second"}, {"functionCall": {"id": "b", "name": "g", "args": {"y": 2}}}], "role": "model"}, "finishReason": "STOP", "index": 1}], "responseId": "r1"}`,
      `{"candidates": [{"content": {"parts": [{"text": "done"}], "role": "model"}, "finishReason": "STOP", "index": 0}, {"content": {"parts": [{"text": "other"}], "role": "model"}, "index": 1}], "responseId": "r1"}`,
    ]);
    expect(answer.content).toEqual([
      { type: "tool-call", callId: "a", itemId: "a", name: "f", arguments: args },
      { type: "text", text: "done" },
    ]);
  });

  it("keeps verbatim every part that is not plain text, a thought or a call (and still pairs each call with its own arguments)", async () => {
    const answer = await answerOf([
      candidate('{"text": "a", "thought": false}, {"text": "b", "thoughtSignature": 5}, {"text": "c", "extra": 1}, {"text": 5}, {"thought": true, "text": "d"}'),
      candidate('{"text": "e"}, {"functionCall": {"name": "f", "args": {"x": 1}}, "extra": 1}, {"functionCall": {"name": "g", "args": {"y": 2}}}', ', "finishReason": "STOP"'),
    ]);
    expect(answer.content).toEqual([
      { type: "provider-item", api: "gemini", item: { text: "a", thought: false } },
      { type: "provider-item", api: "gemini", item: { text: "b", thoughtSignature: 5 } },
      { type: "provider-item", api: "gemini", item: { text: "c", extra: 1 } },
      { type: "provider-item", api: "gemini", item: { text: 5 } },
      { type: "reasoning", text: "d" },
      { type: "text", text: "e" },
      { type: "provider-item", api: "gemini", item: { functionCall: { name: "f", args: { x: 1 } }, extra: 1 } },
      { type: "tool-call", callId: "r1-0", name: "g", arguments: '{"y": 2}' },
    ]);
  });

  it("reports the answer's id once, takes a candidate without content, and names a call dsh's way when neither Gemini nor the answer names it", async () => {
    const chunks = await chunksOf([
      '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {}}}]}}], "error": null}',
      '{"candidates": [{"content": {"parts": [{"text": "x"}]}}], "responseId": ""}',
      '{"candidates": [{"content": {"parts": [{"text": "y"}]}}], "responseId": "r9"}',
      '{"candidates": [{"finishReason": "STOP"}], "responseId": "r10"}',
    ]);
    expect(chunks.filter((chunk) => chunk.type === "response-info")).toEqual([{ type: "response-info", responseId: "r9" }]);
    expect(chunks[0]).toMatchObject({ type: "tool-call-delta", callId: expect.stringMatching(/^[0-9a-f-]{36}-0$/), argumentsDelta: "{}" });
    expect(chunks.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
  });

  it("finishes only on a finish reason: an empty one, or a prompt feedback beside a candidate, is not the end", async () => {
    await expect(chunksOf([candidate('{"text": "x"}', ', "finishReason": ""')])).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", message: "the stream ended before the model finished" });
    await expect(chunksOf([candidate('{"text": "x"}').replace('"responseId"', '"promptFeedback": {"blockReason": "SAFETY"}, "responseId"')])).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED" });
    await expect(chunksOf(['{"promptFeedback": {}}'])).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED" });
    const twice = await chunksOf([candidate('{"text": "x"}', ', "finishReason": "STOP"'), '{"usageMetadata": {"promptTokenCount": 1}, "candidates": [{"finishReason": "STOP"}]}']);
    expect(twice.filter((chunk) => chunk.type === "finish")).toHaveLength(1);
  });

  it("maps finish reasons: the output limit, filters, a blocked prompt, anything else", async () => {
    const reason = async (tail: string) => (await answerOf([candidate('{"text": "x"}', `, "finishReason": "${tail}"`)])).finishReason;
    expect(await reason("STOP")).toBe("stop");
    expect(await reason("MAX_TOKENS")).toBe("length");
    for (const filtered of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"]) expect(await reason(filtered)).toBe("content-filter");
    expect(await reason("MALFORMED_FUNCTION_CALL")).toBe("other");
    expect((await answerOf(['{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 3}}'])).finishReason).toBe("content-filter");
  });

  it("fails an answer that breaks off, reports an error, or cannot be read, each as the error it is", async () => {
    await expect(chunksOf([candidate('{"text": "half"}')])).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", retryable: true });
    await expect(chunksOf(['{"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}'])).rejects.toMatchObject({ code: "LLM_SERVER_ERROR", retryable: true, message: "the provider reported an error mid-stream: UNAVAILABLE: overloaded" });
    await expect(chunksOf(['{"error": {"code": 400, "message": "no", "status": "INVALID_ARGUMENT"}}'])).rejects.toMatchObject({ code: "LLM_SERVER_ERROR", retryable: false });
    for (const code of [429, 500, 503]) {
      await expect(chunksOf([`{"error": {"code": ${code}, "message": "m"}}`])).rejects.toMatchObject({ retryable: true, message: `the provider reported an error mid-stream: ${code}: m` });
    }
    for (const status of ["RESOURCE_EXHAUSTED", "INTERNAL", "DEADLINE_EXCEEDED"]) await expect(chunksOf([`{"error": {"status": "${status}"}}`])).rejects.toMatchObject({ retryable: true });
    await expect(chunksOf(['{"error": {}}'])).rejects.toMatchObject({ retryable: false, message: "the provider reported an error mid-stream: unknown: " });
    await expect(chunksOf([candidate('{"functionCall": {"name": "f", "args": null}}')])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM" });
    await expect(chunksOf([candidate('{"functionCall": {"name": "f", "args": [1]}}')])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM" });
    await expect(chunksOf([candidate('{"functionCall": {"id": 5, "name": "f"}}')])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM" });
    await expect(chunksOf(["{not json"])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM" });
    await expect(chunksOf(["[1]"])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "a stream chunk is not an object: [1]" });
    await expect(chunksOf([candidate('{"functionCall": {"name": "f", "args": "{}"}}')])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("not an object") });
    await expect(chunksOf([candidate('{"functionCall": {"args": {}}}')])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: expect.stringContaining("lacks its name") });
    await expect(chunksOf([candidate('{"functionCall": {"id": "", "name": "f"}}')])).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM" });
  });

  it("counts the tool-use prompt as input and reports no reasoning when Gemini reports no thoughts", () => {
    expect(mapGeminiUsage({ promptTokenCount: 10, toolUsePromptTokenCount: 5, candidatesTokenCount: 2 })).toEqual({ inputTokens: 15, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(mapGeminiUsage({})).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
