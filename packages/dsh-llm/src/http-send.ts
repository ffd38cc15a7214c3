import { LlmError } from "./errors.js";
import { httpError } from "./http-errors.js";
import { markUnsent } from "./unsent.js";
import type { StreamChunk } from "./stream.js";

/** What {@link postStreaming} needs for one attempt. */
export interface StreamingPost {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  /** The caller's cancellation; an abort is `LLM_ABORTED`. */
  readonly signal: AbortSignal | undefined;
  /** How long the response headers may take before the attempt is `LLM_TIMEOUT`. */
  readonly headersTimeoutMs: number;
  readonly fetch: typeof fetch;
}

/** The cause of a network failure in a word: the errno code when there is one. */
export function networkReason(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  if (inner instanceof Error) return (inner as NodeJS.ErrnoException).code ?? inner.message;
  return String(inner);
}

/**
 * For adapters: POSTs a body and resolves the response once its headers arrived. An abort is
 * `LLM_ABORTED` (marked unsent when it came before the body was handed over), slow headers
 * `LLM_TIMEOUT`, anything else before headers `LLM_NETWORK` (retryable).
 */
export async function postStreaming(post: StreamingPost): Promise<Response> {
  const aborted = () => post.signal?.aborted === true;
  if (aborted()) throw markUnsent(new LlmError("LLM_ABORTED", "the request was aborted before it was sent"));
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), post.headersTimeoutMs);
  const signal = post.signal === undefined ? timeout.signal : AbortSignal.any([timeout.signal, post.signal]);
  try {
    return await post.fetch(post.url, { method: "POST", headers: { ...post.headers }, body: post.body, signal });
  } catch (cause) {
    if (aborted()) throw new LlmError("LLM_ABORTED", "the request was aborted", { cause });
    if (timeout.signal.aborted) throw new LlmError("LLM_TIMEOUT", `no response headers from ${post.url} within ${post.headersTimeoutMs} ms`, { cause });
    throw new LlmError("LLM_NETWORK", `cannot reach ${post.url}: ${networkReason(cause)}`, { cause });
  } finally {
    clearTimeout(timer);
  }
}

/** How much of a body that is no event stream an error quotes, and reads to quote it. */
const QUOTED_BYTES = 200;

/** The start of a body, as text on one line, reading no more than it quotes; the rest is cancelled. */
async function bodyStart(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  let bytes = new Uint8Array();
  try {
    while (bytes.length < QUOTED_BYTES) {
      const read = await reader.read();
      if (read.done) break;
      bytes = new Uint8Array([...bytes, ...read.value.subarray(0, QUOTED_BYTES - bytes.length)]);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(bytes).replace(/\s+/g, " ").trim();
}

/**
 * For adapters: a response turned into chunks by `parse`. A non-2xx status is its typed HTTP error, a
 * missing body is `LLM_STREAM_INTERRUPTED`, and a body that says it is not an event stream (a proxy's
 * HTML page answered with 200) is `LLM_MALFORMED_STREAM` naming its type and quoting its start; while
 * streaming, an abort is `LLM_ABORTED` and a failure not already typed (a connection cut mid-body)
 * is `LLM_STREAM_INTERRUPTED`.
 */
export async function* streamResponse(
  response: Response,
  parse: (body: ReadableStream<Uint8Array>) => AsyncIterable<StreamChunk>,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamChunk> {
  if (!response.ok) throw httpError(response.status, await response.text().catch(() => ""), response.headers.get("retry-after"));
  if (response.body === null) throw new LlmError("LLM_STREAM_INTERRUPTED", "the provider sent no body");
  const type = response.headers.get("content-type");
  if (type !== null && !type.toLowerCase().startsWith("text/event-stream")) {
    throw new LlmError("LLM_MALFORMED_STREAM", `the provider answered ${response.status} with ${type}, not an event stream: ${JSON.stringify(await bodyStart(response.body))}`);
  }
  try {
    yield* parse(response.body);
  } catch (error) {
    if (signal?.aborted === true) throw new LlmError("LLM_ABORTED", "the request was aborted", { cause: error });
    if (error instanceof LlmError) throw error;
    throw new LlmError("LLM_STREAM_INTERRUPTED", `the stream broke: ${networkReason(error)}`, { cause: error });
  }
}

/**
 * `baseUrl` with `path` appended to its path (a query string is kept). Not a URL, or a URL that
 * carries credentials (give the key as `apiKey`), is `LLM_INVALID_REQUEST`.
 */
export function endpointUrl(baseUrl: string, path: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new LlmError("LLM_INVALID_REQUEST", "baseUrl is not a URL", { retryable: false });
  }
  if (url.username !== "" || url.password !== "") throw new LlmError("LLM_INVALID_REQUEST", "baseUrl carries credentials: give the key as apiKey", { retryable: false });
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  return url;
}
