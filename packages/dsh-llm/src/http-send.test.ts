import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "./errors.js";
import { endpointUrl, networkReason, postStreaming, streamResponse, type StreamingPost } from "./http-send.js";
import type { StreamChunk } from "./stream.js";
import { isUnsent } from "./unsent.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A real HTTP server on a free port, answering with `handle`; resolves its URL. */
async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  server = createServer(handle);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1/chat`;
}

const post = (url: string, more: Partial<StreamingPost> = {}): StreamingPost => ({
  url,
  headers: { "content-type": "application/json", authorization: "Bearer k" },
  body: new TextEncoder().encode('{"model":"m"}'),
  signal: undefined,
  headersTimeoutMs: 10_000,
  fetch,
  ...more,
});

/** A 200 answer whose body `text` says it is an event stream, as providers' answers do. */
const eventStream = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });

describe("postStreaming", () => {
  it("POSTs the body with the headers given and resolves once the response headers arrive", async () => {
    let seen: { method: string | undefined; auth: string | undefined; body: string } | undefined;
    const url = await serve((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        seen = { method: request.method, auth: request.headers.authorization, body };
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end("data: [DONE]\n\n");
      });
    });
    const response = await postStreaming(post(url));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("data: [DONE]\n\n");
    expect(seen).toEqual({ method: "POST", auth: "Bearer k", body: '{"model":"m"}' });
  });

  it("is LLM_TIMEOUT, retryable, when the headers do not come in time", async () => {
    const url = await serve(() => undefined);
    await expect(postStreaming(post(url, { headersTimeoutMs: 50 }))).rejects.toMatchObject({
      code: "LLM_TIMEOUT",
      retryable: true,
      message: `no response headers from ${url} within 50 ms`,
    });
  });

  it("is LLM_ABORTED, not retryable, when the caller aborts while waiting, and also when the signal was aborted before", async () => {
    const url = await serve(() => undefined);
    const stop = new AbortController();
    // The headers timeout is far off: only the caller's signal can end this wait.
    const waiting = postStreaming(post(url, { signal: stop.signal, headersTimeoutMs: 600_000 }));
    setTimeout(() => stop.abort(), 20);
    await expect(waiting).rejects.toMatchObject({ code: "LLM_ABORTED", retryable: false, message: "the request was aborted" });
    await expect(postStreaming(post(url, { signal: AbortSignal.abort() }))).rejects.toMatchObject({ code: "LLM_ABORTED" });
  });

  it("lets the body stream past the headers timeout: the timeout covers the headers only", async () => {
    let finish = () => undefined as void;
    const url = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      finish = () => response.end("data: 2\n\n");
    });
    // A timeout long enough for the headers on a busy machine; the body ends only after it has run out.
    const headersTimeoutMs = 1_000;
    const response = await postStreaming(post(url, { headersTimeoutMs }));
    setTimeout(() => finish(), headersTimeoutMs + 100);
    expect(await response.text()).toBe("data: 1\n\ndata: 2\n\n");
  });

  it("keeps what failed as the cause of a timeout, an abort and a network error", async () => {
    const failure = new TypeError("fetch failed");
    const failing = (() => Promise.reject(failure)) as typeof fetch;
    await expect(postStreaming(post("http://127.0.0.1:9/", { fetch: failing }))).rejects.toMatchObject({ code: "LLM_NETWORK", cause: failure });
    const stop = new AbortController();
    const aborting = (() => {
      stop.abort();
      return Promise.reject(failure);
    }) as typeof fetch;
    await expect(postStreaming(post("http://127.0.0.1:9/", { fetch: aborting, signal: stop.signal }))).rejects.toMatchObject({ code: "LLM_ABORTED", cause: failure });
    const slow = ((_url: string, init: RequestInit) =>
      new Promise((_resolve, reject) => init.signal!.addEventListener("abort", () => reject(failure)))) as typeof fetch;
    await expect(postStreaming(post("http://127.0.0.1:9/", { fetch: slow, headersTimeoutMs: 10 }))).rejects.toMatchObject({ code: "LLM_TIMEOUT", cause: failure });
  });

  it("sends nothing for a signal aborted before the call, and marks that failure unsent; later failures are not", async () => {
    let calls = 0;
    const counting = (() => {
      calls++;
      return Promise.reject(new TypeError("fetch failed"));
    }) as typeof fetch;
    const early = postStreaming(post("http://127.0.0.1:9/", { fetch: counting, signal: AbortSignal.abort() }));
    await expect(early).rejects.toMatchObject({ code: "LLM_ABORTED", message: "the request was aborted before it was sent" });
    expect(isUnsent(await early.catch((error: unknown) => error))).toBe(true);
    expect(calls).toBe(0);
    expect(isUnsent(await postStreaming(post("http://127.0.0.1:9/", { fetch: counting })).catch((error: unknown) => error))).toBe(false);
    expect(calls).toBe(1);
  });

  it("is LLM_NETWORK, retryable, naming the address and the errno when nothing listens", async () => {
    const url = await serve(() => undefined);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    await expect(postStreaming(post(url))).rejects.toMatchObject({ code: "LLM_NETWORK", retryable: true, message: `cannot reach ${url}: ECONNREFUSED` });
  });
});

describe("networkReason", () => {
  it("says the errno of the innermost error, else its message, else the value", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(networkReason(new TypeError("fetch failed", { cause: refused }))).toBe("ECONNREFUSED");
    expect(networkReason(new TypeError("fetch failed", { cause: new Error("other side hung up") }))).toBe("other side hung up");
    expect(networkReason(new Error("boom"))).toBe("boom");
    expect(networkReason("a string")).toBe("a string");
  });
});


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
    expect(await drain(streamResponse(eventStream("x"), parsing(), undefined))).toEqual([{ type: "text-delta", text: "a" }]);
  });

  it("turns a status, a missing body, a cut stream and an abort into typed errors, and keeps typed ones", async () => {
    await expect(drain(streamResponse(new Response("busy", { status: 503, headers: { "retry-after": "2" } }), parsing(), undefined))).rejects.toMatchObject({
      code: "LLM_SERVER_ERROR",
      retryAfterSeconds: 2,
    });
    await expect(drain(streamResponse(new Response(null), parsing(), undefined))).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", message: "the provider sent no body" });
    // A proxy's page answered with 200: named for what it is, quoted from its start, not read whole.
    const html = `<!doctype html>\n<html>  <body>Bad gateway${" padding".repeat(10_000)}</body></html>`;
    const page = new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    await expect(drain(streamResponse(page, parsing(), undefined))).rejects.toMatchObject({
      code: "LLM_MALFORMED_STREAM",
      message: `the provider answered 200 with text/html; charset=utf-8, not an event stream: ${JSON.stringify(html.slice(0, 200).replace(/\s+/g, " ").trim())}`,
    });
    expect(await drain(streamResponse(new Response("x", { headers: { "content-type": "TEXT/EVENT-STREAM; charset=utf-8" } }), parsing(), undefined))).toEqual([{ type: "text-delta", text: "a" }]);
    // A short page is quoted whole; a long one arriving in pieces, to its first 200 bytes, and the rest is never read.
    await expect(drain(streamResponse(new Response("<p>Gone</p>", { headers: { "content-type": "text/html" } }), parsing(), undefined))).rejects.toMatchObject({ message: 'the provider answered 200 with text/html, not an event stream: "<p>Gone</p>"' });
    let cancelled = false;
    const pieces = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new TextEncoder().encode("0123456789".repeat(3))),
      cancel: () => void (cancelled = true),
    });
    await expect(drain(streamResponse(new Response(pieces, { headers: { "content-type": "application/json" } }), parsing(), undefined))).rejects.toMatchObject({
      message: `the provider answered 200 with application/json, not an event stream: "${"0123456789".repeat(20)}"`,
    });
    expect(cancelled).toBe(true);
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    await expect(drain(streamResponse(eventStream("x"), parsing(new TypeError("terminated", { cause: reset })), undefined))).rejects.toMatchObject({
      code: "LLM_STREAM_INTERRUPTED",
      message: "the stream broke: ECONNRESET",
    });
    const typed = new LlmError("LLM_MALFORMED_STREAM", "bad chunk");
    await expect(drain(streamResponse(eventStream("x"), parsing(typed), undefined))).rejects.toBe(typed);
    const stop = new AbortController();
    stop.abort();
    await expect(drain(streamResponse(eventStream("x"), parsing(typed), stop.signal))).rejects.toMatchObject({ code: "LLM_ABORTED", retryable: false });
  });
});

describe("streamResponse, what it keeps of a failure", () => {
  it("maps an error status whose body cannot be read, and keeps the cause of an abort and of a cut stream", async () => {
    const broken = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(new Error("reset")) });
    await expect(drain(streamResponse(new Response(broken, { status: 500 }), parsing(), undefined))).rejects.toMatchObject({ code: "LLM_SERVER_ERROR", message: "provider error (HTTP 500)" });
    const cut = new Error("socket closed");
    await expect(drain(streamResponse(eventStream("x"), parsing(cut), undefined))).rejects.toMatchObject({ message: "the stream broke: socket closed", cause: cut });
    const stop = new AbortController();
    stop.abort();
    await expect(drain(streamResponse(eventStream("x"), parsing(cut), stop.signal))).rejects.toMatchObject({ message: "the request was aborted", cause: cut });
  });
});

describe("endpointUrl", () => {
  it("appends the API's path once, keeps the query, and refuses what is no URL or carries credentials", () => {
    expect(endpointUrl("https://api.example.test/v1/", "/responses").href).toBe("https://api.example.test/v1/responses");
    expect(endpointUrl("https://api.example.test//", "/v1/messages").href).toBe("https://api.example.test/v1/messages");
    expect(endpointUrl("https://api.example.test/v1?tenant=a", "/x").href).toBe("https://api.example.test/v1/x?tenant=a");
    expect(() => endpointUrl("not a url", "/x")).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "baseUrl is not a URL" }));
    for (const url of ["https://user@api.example.test", "https://:secret@api.example.test"]) {
      expect(() => endpointUrl(url, "/x")).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST", message: "baseUrl carries credentials: give the key as apiKey" }));
    }
  });
});
