import { reconstructRequestStream, type ReconstructedRequest } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { EventLog } from "dsh-log";
import { geminiPromptTokens, promptTokens, renderMessagesPrompt, responsesPromptTokens, type MessagesBody } from "dsh-simulator";
import type { MeasuredPrompt } from "./cache-report.js";
import type { MessagesPrompt } from "./messages-misses.js";
import { wireBody, wireOf, type LoggedRequest } from "./providers.js";

/** A rebuilt request and its prompt tokens (and, for the Messages API, its blocks). */
export interface TokenizedRequest {
  readonly request: ReconstructedRequest;
  readonly tokens: Uint32Array | readonly number[];
  readonly messages?: MessagesPrompt | undefined;
}

/**
 * The prompt tokens of one request's exact wire body as the simulator counts them, and for the
 * Messages API its cache blocks too; `time` is when it was dispatched.
 */
export function wireTokens(rebuilt: LoggedRequest, wire: string, time: number): Omit<TokenizedRequest, "request"> {
  const body = JSON.parse(wire) as MessagesBody;
  const { api } = wireOf(rebuilt);
  if (api === "responses") return { tokens: responsesPromptTokens(body) };
  if (api === "gemini") return { tokens: geminiPromptTokens(body) };
  if (api !== "messages") return { tokens: promptTokens(body) };
  const tokens: number[] = [];
  const blocks = renderMessagesPrompt(body, tokens);
  // An Anthropic-format endpoint that ignores cache_control (DeepSeek's) caches like a Chat Completions one.
  if (rebuilt.snapshot.header.wire?.automaticCache === true) return { tokens };
  return { tokens, messages: { blocks, model: rebuilt.request.config.model, time } };
}

/**
 * Every request of `log`, rebuilt, with its exact wire body and its prompt tokens as the simulator
 * counts them (for the Messages API, its cache blocks too), one at a time.
 */
export async function* tokenizedRequests(log: EventLog, attachments: AttachmentStore): AsyncGenerator<TokenizedRequest & { readonly wire: string }> {
  for await (const rebuilt of reconstructRequestStream(log)) {
    const wire = await wireBody(rebuilt, attachments);
    yield { request: rebuilt, wire, ...wireTokens(rebuilt, wire, log.get(rebuilt.dispatchSeq)!.time) };
  }
}

/** How many leading items two token lists share. */
export function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

/** Tokenized requests measured for the cache report: each one's size and the tokens it shares with the one before. */
export async function* measured(requests: AsyncIterable<TokenizedRequest>): AsyncGenerator<MeasuredPrompt> {
  let previous: TokenizedRequest["tokens"] = [];
  for await (const tokenized of requests) {
    const { request, tokens, messages } = tokenized;
    yield { request, promptTokens: tokens.length, sharedTokens: commonPrefix(previous, tokens), messages };
    previous = tokens;
  }
}
