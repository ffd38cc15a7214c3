import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LlmRuntime, type GenerateOptions } from "dsh-llm";
import { afterEach, describe, expect, it } from "vitest";
import { ChatCompletionsAdapter } from "./adapter.js";
import { DEEPSEEK_MODELS } from "./catalog.js";

const KEY = "sk-live-0123456789abcdefSECRET";
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A real HTTP server on loopback answering with `handle`; resolves its base URL. */
async function serve(handle: (request: IncomingMessage, response: ServerResponse, body: string) => void): Promise<string> {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => handle(request, response, body));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`;
}

const request: GenerateOptions = {
  config: { provider: "p", model: "m" },
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }],
};

async function failure(options: ConstructorParameters<typeof ChatCompletionsAdapter>[0]): Promise<Error & { code?: string }> {
  const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter(options)] });
  return runtime.generate(request).then(
    () => Object.assign(new Error("expected a failure"), { code: "NONE" }),
    (error: unknown) => error as Error & { code?: string },
  );
}

const sse = (response: ServerResponse, chunks: readonly unknown[]) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.end("data: [DONE]\n\n");
};

describe("secrets never leave the adapter", () => {
  it("redacts a key the provider echoes in an HTTP error body", async () => {
    const baseUrl = await serve((req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${String(req.headers.authorization)} (${encodeURIComponent(KEY)})` } }));
    });
    const error = await failure({ provider: "p", dialect: "openai", baseUrl, apiKey: KEY });
    expect(error.code).toBe("LLM_AUTH");
    expect(error.message).toBe("the provider refused the credentials (HTTP 401: Incorrect API key provided: Bearer [redacted] ([redacted]))");
  });

  it("redacts a key echoed in an error event inside the stream", async () => {
    const baseUrl = await serve((_req, res) => sse(res, [{ error: { message: `key ${KEY} is over quota` } }]));
    const error = await failure({ provider: "p", dialect: "openai", baseUrl, apiKey: KEY });
    expect(error.message).toBe("the provider reported an error mid-stream: key [redacted] is over quota");
  });

  it("sends credentials in the base URL as basic auth, keeps its query, and never prints the password", async () => {
    let seen: { url?: string; authorization?: string } = {};
    const baseUrl = await serve((req, res) => {
      seen = { url: req.url!, authorization: req.headers.authorization! };
      sse(res, [{ choices: [{ delta: { content: "ok" }, finish_reason: "stop" }] }]);
    });
    const withCredentials = baseUrl.replace("http://", "http://proxy-user:pa%24%24word@");
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl: `${withCredentials}/?tenant=7` })] });
    await expect(runtime.generate(request)).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
    expect(seen).toEqual({ url: "/v1/chat/completions?tenant=7", authorization: `Basic ${Buffer.from("proxy-user:pa$$word").toString("base64")}` });
    const unreachable = await failure({ provider: "p", dialect: "openai", baseUrl: "http://proxy-user:pa%24%24word@127.0.0.1:9/v1" });
    expect(unreachable).toMatchObject({ code: "LLM_NETWORK" });
    expect(unreachable.message).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions: /);
    expect(unreachable.message).not.toMatch(/pa\$\$word|pa%24%24word|proxy-user/);
    expect(() => new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl: withCredentials, apiKey: KEY })).toThrowError(/give one or the other/);
    expect(() => new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl: "not a url" })).toThrowError("baseUrl is not a URL");
  });
});

describe("a provider that misbehaves", () => {
  it("is timed out when it accepts the request but never sends headers", async () => {
    const baseUrl = await serve(() => undefined);
    const error = await failure({ provider: "p", dialect: "openai", baseUrl, headersTimeoutMs: 200 });
    expect(error).toMatchObject({ code: "LLM_TIMEOUT", retryable: true });
    expect(error.message).toBe(`no response headers from ${baseUrl}/chat/completions within 200 ms`);
  });

  it("is refused as malformed (retryable) when it sends a numeric or duplicate tool-call id, or bad usage", async () => {
    for (const chunks of [
      [{ choices: [{ delta: { tool_calls: [{ index: 0, id: 12, function: { name: "f", arguments: "{}" } }] }, finish_reason: "tool_calls" }] }],
      [{ choices: [{ delta: { tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: "{}" } }, { index: 1, id: "a", function: { name: "f", arguments: "{}" } }] }, finish_reason: "tool_calls" }] }],
      [{ choices: [{ delta: { content: "x" }, finish_reason: "stop" }], usage: { prompt_tokens: -3, completion_tokens: 1 } }],
    ]) {
      const baseUrl = await serve((_req, res) => sse(res, chunks));
      expect(await failure({ provider: "p", dialect: "openai", baseUrl })).toMatchObject({ code: "LLM_MALFORMED_STREAM", retryable: true });
      server?.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
  });
});

describe("a provider that echoes a long key where a message cuts it or the answer carries it", () => {
  const LONG = `sk-proj-${"Zq7".repeat(30)}xy`; // 100 characters
  const options = (baseUrl: string) => ({ provider: "p", dialect: "openai" as const, baseUrl, apiKey: LONG });
  const holdsKeyMaterial = (text: string) => [12, 20, 40].some((length) => text.includes(LONG.slice(0, length)) || text.includes(LONG.slice(-length)));

  it("redacts the start of a key that an unreadable stream chunk's 80-character quote cuts", async () => {
    const baseUrl = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${LONG} is not JSON\n\n`);
    });
    const error = await failure(options(baseUrl));
    expect(error.code).toBe("LLM_MALFORMED_STREAM");
    expect(error.message).toContain("[redacted]");
    expect(holdsKeyMaterial(error.message)).toBe(false);
  });

  it("redacts a key that straddles the 300-character cut of an error body", async () => {
    const baseUrl = await serve((_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `${"x".repeat(250)} your key ${LONG} is malformed` } }));
    });
    const error = await failure(options(baseUrl));
    expect(error.code).toBe("LLM_BAD_REQUEST");
    expect(error.message).toMatch(/your key \[redacted\]\)$/);
    expect(holdsKeyMaterial(error.message)).toBe(false);
  });

  it("redacts a key the answer uses as the id of two tool calls, which the runtime refuses after the stream", async () => {
    const call = (index: number) => ({ choices: [{ index: 0, delta: { tool_calls: [{ index, id: LONG, type: "function", function: { name: "t", arguments: "{}" } }] }, finish_reason: null }] });
    const baseUrl = await serve((_req, res) => sse(res, [call(0), call(1), { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }]));
    const error = await failure(options(baseUrl));
    expect(error).toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "stream produced two tool calls with id [redacted]" });
  });
});

describe("the endpoint and its headers", () => {
  it("posts JSON for an event stream to the base path + /chat/completions, with a bearer key, basic auth from a user alone, or nothing", async () => {
    const seen: { url: string; headers: Record<string, unknown> }[] = [];
    const baseUrl = await serve((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      sse(res, [{ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }]);
    });
    const origin = baseUrl.replace(/\/v1$/, "");
    await new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl: `${baseUrl}//`, apiKey: KEY })] }).generate(request);
    await new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl: origin.replace("http://", "http://only-user@") })] }).generate(request);
    await new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl })] }).generate(request);
    expect(seen.map((entry) => entry.url)).toEqual(["/v1/chat/completions", "/chat/completions", "/v1/chat/completions"]);
    expect(seen[0]!.headers).toMatchObject({ "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${KEY}` });
    expect(seen[1]!.headers.authorization).toBe(`Basic ${Buffer.from("only-user:").toString("base64")}`);
    expect(seen[2]!.headers.authorization).toBeUndefined();
  });

  it("refuses a base URL that is not one, or credentials beside a key, with one line and never as retryable", () => {
    expect(() => new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl: "not a url" })).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "baseUrl is not a URL" }));
    expect(() => new ChatCompletionsAdapter({ provider: "p", dialect: "openai", baseUrl: "http://u:p@127.0.0.1:9/v1", apiKey: KEY })).toThrowError(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "baseUrl carries credentials and an apiKey is set: give one or the other" }),
    );
  });

  it("takes model defaults from its own function or its catalog, and refuses a retired model either way", () => {
    const plain = new ChatCompletionsAdapter({ provider: "p", dialect: "deepseek", baseUrl: "http://127.0.0.1:9" });
    expect(plain.modelDefaults("anything")).toEqual({});
    const own = new ChatCompletionsAdapter({ provider: "p", dialect: "deepseek", baseUrl: "http://127.0.0.1:9", catalog: DEEPSEEK_MODELS, modelDefaults: () => ({ maxTokens: 7 }) });
    expect(own.modelDefaults("deepseek-v4-pro")).toEqual({ maxTokens: 7 });
    expect(() => own.modelDefaults("deepseek-chat")).toThrowError(expect.objectContaining({ code: "LLM_MODEL_RETIRED", retryable: false }));
    expect(new ChatCompletionsAdapter({ provider: "p", dialect: "deepseek", baseUrl: "http://127.0.0.1:9", modelDefaults: () => ({ maxTokens: 3 }) }).modelDefaults("deepseek-chat")).toEqual({ maxTokens: 3 });
  });
});
