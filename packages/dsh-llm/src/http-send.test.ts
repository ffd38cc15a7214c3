import { describe, expect, it } from "vitest";
import { LlmError } from "./errors.js";
import { streamResponse } from "./http-send.js";
import type { StreamChunk } from "./stream.js";

async function drain(chunks: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

const parsing = (fail?: unknown) =>
  async function* (): AsyncGenerator<StreamChunk> {
    yield { type: "text-delta", text: "a" };
    if (fail !== undefined) throw fail;
  };

describe("streamResponse", () => {
  it("passes the parsed chunks of a 2xx body through", async () => {
    expect(await drain(streamResponse(new Response("x"), parsing(), undefined))).toEqual([{ type: "text-delta", text: "a" }]);
  });

  it("turns a status, a missing body, a cut stream and an abort into typed errors, and keeps typed ones", async () => {
    await expect(drain(streamResponse(new Response("busy", { status: 503, headers: { "retry-after": "2" } }), parsing(), undefined))).rejects.toMatchObject({
      code: "LLM_SERVER_ERROR",
      retryAfterSeconds: 2,
    });
    await expect(drain(streamResponse(new Response(null), parsing(), undefined))).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", message: "the provider sent no body" });
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    await expect(drain(streamResponse(new Response("x"), parsing(new TypeError("terminated", { cause: reset })), undefined))).rejects.toMatchObject({
      code: "LLM_STREAM_INTERRUPTED",
      message: "the stream broke: ECONNRESET",
    });
    const typed = new LlmError("LLM_MALFORMED_STREAM", "bad chunk");
    await expect(drain(streamResponse(new Response("x"), parsing(typed), undefined))).rejects.toBe(typed);
    const stop = new AbortController();
    stop.abort();
    await expect(drain(streamResponse(new Response("x"), parsing(typed), stop.signal))).rejects.toMatchObject({ code: "LLM_ABORTED", retryable: false });
  });
});
