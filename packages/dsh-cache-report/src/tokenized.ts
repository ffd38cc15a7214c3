import { reconstructRequestStream, type ReconstructedRequest } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { Message } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { serializeMessage } from "dsh-openai-compatible";
import { serializeMessageItems } from "dsh-openai-responses";
import { geminiPromptTokens, promptTokens, renderMessagesPrompt, responsesPromptTokens, type MessagesBody } from "dsh-simulator";
import type { MeasuredPrompt } from "./cache-report.js";
import { commonPrefix } from "./common-prefix.js";
import { extendGeminiTokens, geminiTailOf, type GeminiTail } from "./gemini-measure.js";
import type { MessagesPrompt } from "./messages-misses.js";
import { wireApiOf, wireBody, type LoggedRequest, type WireApi } from "dsh-wire";

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
  const { api } = wireApiOf(rebuilt);
  if (api === "responses") return { tokens: responsesPromptTokens(body) };
  if (api === "gemini") return { tokens: geminiPromptTokens(body) };
  if (api !== "messages") return { tokens: promptTokens(body) };
  const tokens: number[] = [];
  const blocks = renderMessagesPrompt(body, tokens);
  // An Anthropic-format endpoint that ignores cache_control (DeepSeek's) caches like a Chat Completions one.
  if (rebuilt.snapshot.header.wire?.automaticCache === true) return { tokens };
  return { tokens, messages: { blocks, model: rebuilt.request.config.model, time } };
}

/** The APIs whose body is the wire JSON of its messages one after another, each tokenized apart. */
export type AppendOnlyApi = Extract<WireApi, { readonly api: "chat-completions" | "responses" }>;

/** The prompt tokens one message adds to a Chat Completions body (its message) or a Responses body (its input items). */
export async function appendedTokens(wire: AppendOnlyApi, message: Message, attachments: AttachmentStore): Promise<Uint32Array> {
  if (wire.api === "chat-completions") return promptTokens({ messages: [JSON.parse(await serializeMessage(message, { dialect: wire.dialect, attachments }))] });
  return responsesPromptTokens({ input: JSON.parse(`[${await serializeMessageItems(message, { attachments })}]`) });
}

/** Whether `list` starts with every item of `start`, the same objects in the same places. */
function startsWith(list: readonly Message[], start: readonly Message[]): boolean {
  if (start.length > list.length) return false;
  for (let i = 0; i < start.length; i++) if (list[i] !== start[i]) return false;
  return true;
}

/** The last request tokenized, for the next one to extend: its header, messages and prompt tokens, and for Gemini its contents. */
interface Extendable {
  readonly header: LoggedRequest["snapshot"]["header"];
  readonly messages: readonly Message[];
  readonly tokens: Uint32Array;
  readonly gemini?: GeminiTail | undefined;
}

/** The tokens of `last`'s prompt followed by those of each message of `messages` after its own. */
async function extendedTokens(last: Extendable, messages: readonly Message[], api: AppendOnlyApi, attachments: AttachmentStore): Promise<Uint32Array> {
  const added: Uint32Array[] = [];
  for (let i = last.messages.length; i < messages.length; i++) added.push(await appendedTokens(api, messages[i]!, attachments));
  const tokens = new Uint32Array(added.reduce((sum, part) => sum + part.length, last.tokens.length));
  tokens.set(last.tokens);
  let at = last.tokens.length;
  for (const part of added) {
    tokens.set(part, at);
    at += part.length;
  }
  return tokens;
}

/** The APIs whose prompt {@link tokenizedRequests} can extend from the request before. */
type ExtendableApi = Extract<WireApi, { readonly api: "chat-completions" | "gemini" }>;

/**
 * The prompt tokens of a Chat Completions or Gemini request (`wire` its body): extended from `last`
 * when it only adds messages to that one under the same header, else those of its whole body.
 */
async function extendableTokens(last: Extendable | undefined, rebuilt: LoggedRequest, wire: string, api: ExtendableApi, attachments: AttachmentStore): Promise<Extendable> {
  const { header } = rebuilt.snapshot;
  const { messages } = rebuilt.request;
  const extending = last !== undefined && last.header === header && startsWith(messages, last.messages);
  if (api.api === "gemini") {
    if (extending && last!.gemini !== undefined) {
      const { tail, tokens } = await extendGeminiTokens(last!.gemini, last!.tokens, messages.slice(last!.messages.length));
      return { header, messages, tokens, gemini: tail };
    }
    return { header, messages, tokens: geminiPromptTokens(JSON.parse(wire) as MessagesBody), gemini: await geminiTailOf(messages, attachments) };
  }
  const tokens = extending ? await extendedTokens(last!, messages, api, attachments) : promptTokens(JSON.parse(wire) as MessagesBody);
  return { header, messages, tokens };
}

/**
 * Every request of `log`, rebuilt, with its exact wire body and its prompt tokens as the simulator
 * counts them (for the Messages API, its cache blocks too), one at a time. With `extend`, a Chat
 * Completions or Gemini request under the same header as the one before, holding all of that one's
 * messages and more, is counted from what it adds (the simulator tokenizes each message, each
 * Gemini content, apart: a Gemini request renders its contents from the previous one's last on, which
 * new messages may join), not parsed and tokenized whole: the same tokens, in time that grows with
 * what is new.
 */
export async function* tokenizedRequests(log: EventLog, attachments: AttachmentStore, options: { readonly extend?: boolean } = {}): AsyncGenerator<TokenizedRequest & { readonly wire: string }> {
  let last: Extendable | undefined;
  for await (const rebuilt of reconstructRequestStream(log)) {
    const wire = await wireBody(rebuilt, attachments);
    const api = wireApiOf(rebuilt);
    if (options.extend !== true || (api.api !== "chat-completions" && api.api !== "gemini")) {
      yield { request: rebuilt, wire, ...wireTokens(rebuilt, wire, log.get(rebuilt.dispatchSeq)!.time) };
      continue;
    }
    last = await extendableTokens(last, rebuilt, wire, api, attachments);
    yield { request: rebuilt, wire, tokens: last.tokens };
  }
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
