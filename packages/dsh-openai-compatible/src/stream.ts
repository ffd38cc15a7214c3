import { truncateText } from "dsh-base";
import { LlmError, deepFreeze, readSseStream, type FinishReason, type SseFold, type StreamChunk, type TokenUsage } from "dsh-llm";

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = deepFreeze({
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  content_filter: "content-filter",
});

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

interface WireChunk {
  choices?: {
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: { index?: number; id?: unknown; function?: { name?: string; arguments?: string } }[] | null;
    };
    finish_reason?: string | null;
  }[];
  usage?: WireUsage | null;
  error?: { message?: string };
}

/**
 * Maps provider usage to `TokenUsage`: cache reads from DeepSeek's `prompt_cache_hit_tokens`, else
 * OpenAI's `prompt_tokens_details.cached_tokens`; cache writes from OpenAI's
 * `prompt_tokens_details.cache_write_tokens`; reasoning from `completion_tokens_details.reasoning_tokens`.
 */
export function mapUsage(usage: WireUsage): TokenUsage {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cacheReadTokens: usage.prompt_cache_hit_tokens ?? usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

function chunksOf(data: string): StreamChunk[] {
  let parsed: WireChunk;
  try {
    parsed = JSON.parse(data) as WireChunk;
  } catch (cause) {
    throw new LlmError("LLM_MALFORMED_STREAM", `unreadable stream chunk: ${truncateText(data, 80)}`, { cause });
  }
  if (parsed.error !== undefined) {
    throw new LlmError("LLM_SERVER_ERROR", `the provider reported an error mid-stream: ${parsed.error.message ?? "unknown"}`);
  }
  const out: StreamChunk[] = [];
  for (const choice of parsed.choices ?? []) {
    const delta = choice.delta ?? {};
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
      out.push({ type: "reasoning-delta", text: delta.reasoning_content });
    }
    if (typeof delta.content === "string" && delta.content !== "") out.push({ type: "text-delta", text: delta.content });
    for (const call of delta.tool_calls ?? []) {
      if (typeof call.index !== "number") throw new LlmError("LLM_MALFORMED_STREAM", "a tool-call delta has no index");
      if (call.id !== undefined && call.id !== null && typeof call.id !== "string") {
        throw new LlmError("LLM_MALFORMED_STREAM", `tool call ${call.index} has a non-string id ${JSON.stringify(call.id)}`);
      }
      out.push({
        type: "tool-call-delta",
        index: call.index,
        ...(typeof call.id === "string" ? { callId: call.id } : {}),
        ...(call.function?.name === undefined ? {} : { name: call.function.name }),
        argumentsDelta: call.function?.arguments ?? "",
      });
    }
    if (typeof choice.finish_reason === "string") {
      out.push({ type: "finish", reason: FINISH_REASONS[choice.finish_reason] ?? "other" });
    }
  }
  if (parsed.usage !== undefined && parsed.usage !== null) out.push({ type: "usage", usage: mapUsage(parsed.usage) });
  return out;
}

/** Folds Chat Completions events: the answer is whole at its finish reason, the stream done at `[DONE]`. */
class ChatCompletionFold implements SseFold {
  done = false;
  complete = false;

  fold(data: string): readonly StreamChunk[] {
    if (data === "[DONE]") {
      this.done = true;
      return [];
    }
    const chunks = chunksOf(data);
    if (chunks.some((chunk) => chunk.type === "finish")) this.complete = true;
    return chunks;
  }
}

/**
 * Parses a Chat Completions SSE body into neutral chunks. A body that ends before a finish reason
 * is `LLM_STREAM_INTERRUPTED`; no bytes for `idleTimeoutMs` is `LLM_TIMEOUT` (both retryable).
 */
export function parseChatCompletionStream(body: ReadableStream<Uint8Array>, idleTimeoutMs: number): AsyncGenerator<StreamChunk> {
  return readSseStream(body, idleTimeoutMs, new ChatCompletionFold(), "the model finished");
}
