import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LlmRuntime, freezeRequest } from "dsh-llm";
import { afterEach, describe, expect, it } from "vitest";
import { ANTHROPIC_VERSION, AnthropicAdapter } from "./adapter.js";

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A real HTTP server answering every request with `answer`; resolves its origin and what it saw. */
async function serve(answer: (response: ServerResponse) => void): Promise<{ origin: string; seen: { url: string; headers: IncomingHttpHeaders }[] }> {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  server = createServer((request, response) => {
    seen.push({ url: request.url ?? "", headers: request.headers });
    request.resume();
    request.on("end", () => answer(response));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const request = freezeRequest({ config: { provider: "anthropic", model: "claude-haiku-4-5", maxTokens: 64 }, messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }] });
const sse = (events: object[]) => events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
const finished = sse([{ type: "message_start", message: { usage: { input_tokens: 3 } } }, { type: "message_delta", delta: { stop_reason: "end_turn" } }, { type: "message_stop" }]);

describe("AnthropicAdapter over HTTP", () => {
  it("posts to the base path + /v1/messages with the version, the content types and the key as x-api-key only", async () => {
    const { origin, seen } = await serve((response) => response.end(finished));
    await new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: `${origin}/anthropic//`, apiKey: "sk-ant-secret-key" })] }).generate(request);
    await new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: origin })] }).generate(request);
    expect(seen.map((entry) => entry.url)).toEqual(["/anthropic/v1/messages", "/v1/messages"]);
    expect(seen[0]!.headers).toMatchObject({ "content-type": "application/json", accept: "text/event-stream", "anthropic-version": ANTHROPIC_VERSION, "x-api-key": "sk-ant-secret-key" });
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(seen[1]!.headers["x-api-key"]).toBeUndefined();
  });

  it("redacts the key from an error body that echoes it", async () => {
    const { origin } = await serve((response) => {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key sk-ant-secret-key" } }));
    });
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: origin, apiKey: "sk-ant-secret-key" })] });
    await expect(runtime.generate(request)).rejects.toMatchObject({ code: "LLM_AUTH", message: "the provider refused the credentials (HTTP 401: invalid x-api-key [redacted])" });
  });

  it("reports a connection cut mid-stream as interrupted, and an abort as aborted", async () => {
    const { origin } = await serve((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sse([{ type: "message_start", message: { usage: {} } }]));
      setTimeout(() => response.destroy(), 20);
    });
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: origin })] });
    await expect(runtime.generate(request)).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", retryable: true });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 5);
    await expect(runtime.generate(freezeRequest({ ...request, signal: stop.signal }))).rejects.toMatchObject({ code: "LLM_ABORTED", retryable: false });
  });

  it("refuses a base URL that is not one or that carries credentials, with one clear line", () => {
    for (const baseUrl of ["not a url", "https://user@example.test", "https://:pw@example.test"]) {
      expect(() => new AnthropicAdapter({ baseUrl })).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false }));
    }
    expect(() => new AnthropicAdapter({ baseUrl: "nope" })).toThrowError("baseUrl is not a URL");
    expect(() => new AnthropicAdapter({ baseUrl: "https://user@example.test" })).toThrowError("baseUrl carries credentials: give the key as apiKey");
  });
});
