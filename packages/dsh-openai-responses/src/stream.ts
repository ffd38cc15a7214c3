import { truncateText } from "dsh-base";
import { LlmError, readSseStream, sseObject, type CacheDiagnosis, type FinishReason, type JsonObject, type SseFold, type StreamChunk, type TokenUsage } from "dsh-llm";
import { RESPONSES_API, textOnlyMessage } from "./items.js";

interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

interface WireResponse {
  id?: string;
  prompt_cache_diagnostics?: { type?: string; reason?: string; cache_missed_tokens?: number } | null;
  usage?: WireUsage | null;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
}

interface WireItem extends JsonObject {
  readonly type: string;
}

interface WireEvent {
  type?: string;
  output_index?: number;
  content_index?: number;
  item_id?: string;
  delta?: string;
  item?: WireItem;
  response?: WireResponse;
  code?: string;
  message?: string;
}

/**
 * Maps Responses usage to `TokenUsage`: `input_tokens` (cached included), `cached_tokens` as cache
 * reads, `cache_write_tokens` as cache writes (GPT-5.6 and later bill them; earlier models report
 * none), `output_tokens`, and `reasoning_tokens` when reported.
 */
export function mapResponsesUsage(usage: WireUsage): TokenUsage {
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.input_tokens_details?.cache_write_tokens ?? 0,
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

/** OpenAI's `prompt_cache_diagnostics` in dsh's words: `cache_hit`, `cache_miss` with its reason and missed tokens, `comparison_response_not_found`, `unavailable`. */
export function responsesDiagnosis(diagnostics: WireResponse["prompt_cache_diagnostics"]): CacheDiagnosis | undefined {
  switch (diagnostics?.type) {
    case "cache_hit":
      return { verdict: "hit" };
    case "cache_miss": {
      const missed = diagnostics.cache_missed_tokens;
      return { verdict: "miss", reason: diagnostics.reason || "unknown", ...(Number.isInteger(missed) && missed! >= 0 ? { missedTokens: missed! } : {}) };
    }
    case "comparison_response_not_found":
      return { verdict: "not-found", reason: diagnostics.type };
    case "unavailable":
      return { verdict: "unavailable", reason: diagnostics.type };
    default:
      return undefined;
  }
}

/** Separates the text parts of all output items into blocks: the part's index within its item, below this. */
const PARTS_PER_ITEM = 1 << 16;

const INCOMPLETE: Readonly<Record<string, FinishReason>> = Object.freeze({ max_output_tokens: "length", content_filter: "content-filter" });

/** Turns the events of one response into neutral chunks, holding what the deltas said so each finished item can be checked against them. */
class ResponseFolder implements SseFold {
  /** Streamed text per output item and part, to check against the finished item. */
  readonly #streamed = new Map<number, string[]>();
  #calls = 0;
  done = false;

  get complete(): boolean {
    return this.done;
  }

  fold(data: string): StreamChunk[] {
    const chunks = this.#event(sseObject<WireEvent>(data, "event"));
    this.done = chunks.some((chunk) => chunk.type === "finish");
    return chunks;
  }

  #event(event: WireEvent): StreamChunk[] {
    switch (event.type) {
      case "response.created":
        return typeof event.response?.id === "string" && event.response.id !== "" ? [{ type: "response-info", responseId: event.response.id }] : [];
      case "response.output_text.delta":
      case "response.refusal.delta":
        return this.#delta(event);
      case "response.output_item.done":
        return this.#done(event);
      case "response.completed":
        return this.#end(event.response, this.#calls > 0 ? "tool-calls" : "stop");
      case "response.incomplete":
        return this.#end(event.response, INCOMPLETE[event.response?.incomplete_details?.reason ?? ""] ?? "other");
      case "response.failed": {
        const error = event.response?.error;
        throw new LlmError("LLM_SERVER_ERROR", `the response failed: ${error?.code ?? "unknown"}: ${truncateText(error?.message ?? "", 300)}`, { retryable: error?.code === "server_error" || error?.code === "rate_limit_exceeded" });
      }
      case "error":
        throw new LlmError("LLM_SERVER_ERROR", `the provider reported an error mid-stream: ${event.code ?? "unknown"}: ${truncateText(event.message ?? "", 300)}`);
      default:
        // Lifecycle and argument deltas: the finished item carries what they said.
        return [];
    }
  }

  #delta(event: WireEvent): StreamChunk[] {
    const { output_index: item, content_index: part, delta } = event;
    if (typeof item !== "number" || typeof part !== "number" || typeof delta !== "string" || typeof event.item_id !== "string") {
      throw new LlmError("LLM_MALFORMED_STREAM", `a text delta lacks its item, part or text: ${truncateText(JSON.stringify(event), 120)}`);
    }
    const parts = this.#streamed.get(item) ?? [];
    parts[part] = (parts[part] ?? "") + delta;
    this.#streamed.set(item, parts);
    return [{ type: "text-delta", text: delta, block: item * PARTS_PER_ITEM + part, itemId: event.item_id }];
  }

  /** A finished item: text checked against its deltas (and streamed if none came; a message saying more is also kept whole), calls and this API's items whole. */
  #done(event: WireEvent): StreamChunk[] {
    const { item, output_index: index } = event;
    if (item === undefined || typeof item.type !== "string" || typeof index !== "number") {
      throw new LlmError("LLM_MALFORMED_STREAM", "an output_item.done event lacks its item or index");
    }
    if (item.type === "function_call") {
      const { id, call_id: callId, name, arguments: args } = item;
      if (typeof id !== "string" || typeof callId !== "string" || typeof name !== "string" || typeof args !== "string") {
        throw new LlmError("LLM_MALFORMED_STREAM", `function call item ${String(id)} lacks its id, call id, name or arguments`);
      }
      return [{ type: "tool-call-delta", index: this.#calls++, callId, name, argumentsDelta: args, itemId: id }];
    }
    if (item.type === "message") return this.#message(item, index);
    return [{ type: "provider-item", api: RESPONSES_API, item }];
  }

  #message(item: WireItem, index: number): StreamChunk[] {
    const id = item.id;
    const content = item.content;
    if (typeof id !== "string" || !Array.isArray(content)) throw new LlmError("LLM_MALFORMED_STREAM", "a message item lacks its id or content");
    const streamed = this.#streamed.get(index) ?? [];
    const out: StreamChunk[] = [];
    content.forEach((part, at) => {
      const text = typeof part === "object" && part !== null && !Array.isArray(part) ? ((part as JsonObject).text ?? (part as JsonObject).refusal) : undefined;
      if (typeof text !== "string") throw new LlmError("LLM_MALFORMED_STREAM", `part ${at} of message ${id} has no text`);
      const sent = streamed[at] ?? "";
      if (sent === "") out.push({ type: "text-delta", text, block: index * PARTS_PER_ITEM + at, itemId: id });
      else if (sent !== text) throw new LlmError("LLM_MALFORMED_STREAM", `message ${id} finished with other text than its deltas streamed`);
    });
    // A message that says more than its text (a refusal, citations, a cut-off status) is also kept whole, to go back as it came.
    if (!textOnlyMessage(item)) out.push({ type: "provider-item", api: RESPONSES_API, item });
    return out;
  }

  #end(response: WireResponse | undefined, reason: FinishReason): StreamChunk[] {
    const usage = response?.usage;
    const diagnosis = responsesDiagnosis(response?.prompt_cache_diagnostics);
    return [
      ...(diagnosis === undefined ? [] : [{ type: "response-info", cacheDiagnosis: diagnosis } as const]),
      ...(usage === undefined || usage === null ? [] : [{ type: "usage", usage: mapResponsesUsage(usage) } as const]),
      { type: "finish", reason },
    ];
  }
}

/**
 * Parses a Responses API SSE body into neutral chunks. Each item is taken from its
 * `response.output_item.done` event, and streamed text must agree with it; a body that ends before
 * `response.completed` or `response.incomplete` is `LLM_STREAM_INTERRUPTED`, and no bytes for
 * `idleTimeoutMs` is `LLM_TIMEOUT` (both retryable).
 */
export function parseResponsesStream(body: ReadableStream<Uint8Array>, idleTimeoutMs: number): AsyncGenerator<StreamChunk> {
  return readSseStream(body, idleTimeoutMs, new ResponseFolder(), "the response completed");
}
