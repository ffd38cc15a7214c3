import { LlmError, deepFreeze, readSseStream, sseObject, type FinishReason, type SseFold, type StreamChunk, type TokenUsage } from "dsh-llm";
import { anthropicDiagnosis, type AnthropicDiagnostics } from "./diagnosis.js";

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = deepFreeze({
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool-calls",
  refusal: "content-filter",
});

/** Anthropic's usage object, as `message_start` and `message_delta` carry it (counts are cumulative). */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

/**
 * Maps Anthropic usage to `TokenUsage`. `input_tokens` is only the uncached remainder, so the whole
 * prompt is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`; cache writes keep
 * their 5-minute / 1-hour split when the provider reports it.
 */
export function mapAnthropicUsage(usage: AnthropicUsage): TokenUsage {
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  const split = usage.cache_creation ?? undefined;
  return {
    inputTokens: (usage.input_tokens ?? 0) + read + written,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: read,
    cacheWriteTokens: written,
    ...(split === undefined ? {} : { cacheWrite5mTokens: split.ephemeral_5m_input_tokens ?? 0, cacheWrite1hTokens: split.ephemeral_1h_input_tokens ?? 0 }),
  };
}

interface WireEvent {
  type?: string;
  index?: number;
  message?: { id?: unknown; usage?: AnthropicUsage; diagnostics?: AnthropicDiagnostics };
  content_block?: { type?: string; text?: string; thinking?: string; data?: string; id?: unknown; name?: unknown; signature?: string };
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  diagnostics?: AnthropicDiagnostics;
  error?: { type?: string; message?: string };
}

/** An `error` event sent after HTTP 200, as a typed error (`overloaded_error` and `api_error` are retryable). */
function streamError(error: WireEvent["error"]): LlmError {
  const message = `the provider reported an error mid-stream: ${error?.type ?? "error"}: ${error?.message ?? "unknown"}`;
  switch (error?.type) {
    case "rate_limit_error":
      return new LlmError("LLM_RATE_LIMITED", message);
    case "overloaded_error":
    case "api_error":
      return new LlmError("LLM_SERVER_ERROR", message);
    default:
      return new LlmError("LLM_BAD_REQUEST", message);
  }
}

/** The content-block index a block event is about; without one the stream is malformed. */
function blockIndex(event: WireEvent): number {
  if (typeof event.index !== "number") throw new LlmError("LLM_MALFORMED_STREAM", `a ${String(event.type)} event has no block index`);
  return event.index;
}

/** Folds Anthropic stream events into neutral chunks; one instance per response. */
class EventMapper implements SseFold {
  readonly #comparing: boolean;
  readonly #signatures = new Map<number, string>();
  #usage: AnthropicUsage = {};
  #stopReason: string | undefined;
  done = false;

  constructor(comparing: boolean) {
    this.#comparing = comparing;
  }

  get complete(): boolean {
    return this.done;
  }

  fold(data: string): StreamChunk[] {
    return this.#map(sseObject<WireEvent>(data, "event"));
  }

  #map(event: WireEvent): StreamChunk[] {
    switch (event.type) {
      case "message_start": {
        this.#usage = { ...(event.message?.usage ?? {}) };
        const id = event.message?.id;
        return this.#info(typeof id === "string" && id !== "" ? id : undefined, event.message?.diagnostics);
      }
      case "content_block_start":
        return this.#start(blockIndex(event), event.content_block ?? {});
      case "content_block_delta":
        return this.#delta(blockIndex(event), event.delta ?? {});
      case "content_block_stop": {
        const signature = this.#signatures.get(blockIndex(event));
        return signature === undefined || signature === "" ? [] : [{ type: "reasoning-signature", signature, block: blockIndex(event) }];
      }
      case "message_delta":
        // Usage here is cumulative: it replaces what message_start said, field by field.
        this.#usage = { ...this.#usage, ...Object.fromEntries(Object.entries(event.usage ?? {}).filter(([, value]) => value !== null && value !== undefined)) };
        if (typeof event.delta?.stop_reason === "string") this.#stopReason = event.delta.stop_reason;
        return this.#info(undefined, event.diagnostics);
      case "message_stop":
        this.done = true;
        return [
          { type: "usage", usage: mapAnthropicUsage(this.#usage) },
          { type: "finish", reason: FINISH_REASONS[this.#stopReason ?? ""] ?? "other" },
        ];
      case "ping":
        return [];
      case "error":
        throw streamError(event.error);
      default:
        throw new LlmError("LLM_MALFORMED_STREAM", `unknown stream event ${String(event.type)}`);
    }
  }

  /** The answer's id and the provider's cache diagnosis, when the event carries either. */
  #info(responseId: string | undefined, diagnostics: AnthropicDiagnostics | undefined): StreamChunk[] {
    const cacheDiagnosis = diagnostics === undefined ? undefined : anthropicDiagnosis(diagnostics, this.#comparing);
    if (responseId === undefined && cacheDiagnosis === undefined) return [];
    return [{ type: "response-info", ...(responseId === undefined ? {} : { responseId }), ...(cacheDiagnosis === undefined ? {} : { cacheDiagnosis }) }];
  }

  #start(index: number, block: NonNullable<WireEvent["content_block"]>): StreamChunk[] {
    switch (block.type) {
      case "text":
        return block.text ? [{ type: "text-delta", text: block.text, block: index }] : [];
      case "thinking":
        this.#signatures.set(index, block.signature ?? "");
        return block.thinking ? [{ type: "reasoning-delta", text: block.thinking, block: index }] : [];
      case "redacted_thinking":
        return [{ type: "redacted-reasoning", data: block.data ?? "" }];
      case "tool_use":
        if (typeof block.id !== "string" || typeof block.name !== "string") throw new LlmError("LLM_MALFORMED_STREAM", `tool_use block ${index} has no id or name`);
        return [{ type: "tool-call-delta", index, callId: block.id, name: block.name, argumentsDelta: "" }];
      default:
        throw new LlmError("LLM_MALFORMED_STREAM", `content block ${index} has a type this adapter does not handle: ${String(block.type)}`);
    }
  }

  #delta(index: number, delta: NonNullable<WireEvent["delta"]>): StreamChunk[] {
    switch (delta.type) {
      case "text_delta":
        return [{ type: "text-delta", text: delta.text ?? "", block: index }];
      case "thinking_delta":
        return [{ type: "reasoning-delta", text: delta.thinking ?? "", block: index }];
      case "signature_delta":
        if (!this.#signatures.has(index)) throw new LlmError("LLM_MALFORMED_STREAM", `a signature arrived for block ${index}, which is not a thinking block`);
        this.#signatures.set(index, this.#signatures.get(index)! + (delta.signature ?? ""));
        return [];
      case "input_json_delta":
        return [{ type: "tool-call-delta", index, argumentsDelta: delta.partial_json ?? "" }];
      default:
        throw new LlmError("LLM_MALFORMED_STREAM", `block ${index} sent a delta this adapter does not handle: ${String(delta.type)}`);
    }
  }
}

/**
 * Parses a Messages API SSE body into neutral chunks: text, thinking with its signature, redacted
 * thinking, tool calls (keyed by content-block index), usage and the stop reason. A body that ends
 * before `message_stop` is `LLM_STREAM_INTERRUPTED`; no bytes for `idleTimeoutMs` is `LLM_TIMEOUT`.
 */
export function parseMessagesStream(body: ReadableStream<Uint8Array>, idleTimeoutMs: number, options: { readonly comparing?: boolean } = {}): AsyncGenerator<StreamChunk> {
  return readSseStream(body, idleTimeoutMs, new EventMapper(options.comparing ?? false), "message_stop");
}
