import { randomUUID } from "node:crypto";
import { truncateText } from "dsh-base";
import { LlmError, readSseStream, sseObject, type FinishReason, type JsonObject, type SseFold, type StreamChunk, type TokenUsage } from "dsh-llm";
import { GEMINI_API } from "./parts.js";
import { functionCallArgs } from "./raw-args.js";

/** Gemini's `usageMetadata`, as far as dsh reads it. */
export interface GeminiUsage {
  readonly promptTokenCount?: number;
  readonly cachedContentTokenCount?: number;
  readonly candidatesTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly toolUsePromptTokenCount?: number;
}

type WirePart = JsonObject & { readonly text?: unknown; readonly thought?: unknown; readonly thoughtSignature?: unknown; readonly functionCall?: JsonObject & { readonly id?: unknown; readonly name?: unknown } };

interface WireChunk {
  readonly candidates?: readonly { readonly content?: { readonly parts?: readonly WirePart[] }; readonly finishReason?: string }[];
  readonly usageMetadata?: GeminiUsage;
  readonly responseId?: string;
  readonly promptFeedback?: { readonly blockReason?: string };
  readonly error?: { readonly code?: number; readonly message?: string; readonly status?: string };
}

/**
 * Maps `usageMetadata` to `TokenUsage`: the prompt (cached part and tool-use prompt included) as
 * input, `cachedContentTokenCount` as cache reads, answer plus thoughts as output, thoughts as
 * reasoning. Gemini's implicit cache bills no writes.
 */
export function mapGeminiUsage(usage: GeminiUsage): TokenUsage {
  const thoughts = usage.thoughtsTokenCount;
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    outputTokens: (usage.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    cacheReadTokens: usage.cachedContentTokenCount ?? 0,
    cacheWriteTokens: 0,
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
  };
}

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"]);
/** The statuses of a mid-stream error worth another attempt. */
const TRANSIENT = new Set(["UNAVAILABLE", "RESOURCE_EXHAUSTED", "INTERNAL", "DEADLINE_EXCEEDED"]);

/** Whether a part is exactly text (or a thought) with an optional signature: anything else is kept verbatim. */
function isTextPart(part: WirePart): boolean {
  return typeof part.text === "string" && Object.keys(part).every((key) => key === "text" || (key === "thought" && part.thought === true) || (key === "thoughtSignature" && typeof part.thoughtSignature === "string"));
}

/** Turns the chunks of one answer into neutral chunks: text, thoughts and calls with their signatures, other parts verbatim. */
class GeminiFolder implements SseFold {
  readonly done = false;
  #finished = false;
  #calls = 0;
  #responseId: string | undefined;

  get complete(): boolean {
    return this.#finished;
  }

  fold(data: string): StreamChunk[] {
    const chunk = sseObject<WireChunk>(data, "chunk");
    if (chunk.error !== undefined && chunk.error !== null) {
      const { code, status, message } = chunk.error;
      throw new LlmError("LLM_SERVER_ERROR", `the provider reported an error mid-stream: ${status ?? code ?? "unknown"}: ${truncateText(message ?? "", 300)}`, { retryable: TRANSIENT.has(status ?? "") || code === 429 || code === 500 || code === 503 });
    }
    const out: StreamChunk[] = [];
    if (typeof chunk.responseId === "string" && chunk.responseId !== "" && this.#responseId === undefined) {
      this.#responseId = chunk.responseId;
      out.push({ type: "response-info", responseId: chunk.responseId });
    }
    const [candidate] = chunk.candidates ?? [];
    const parts = candidate?.content?.parts ?? [];
    const args = parts.some((part) => part.functionCall !== undefined) ? functionCallArgs(data) : new Map<number, string>();
    for (const [index, part] of parts.entries()) out.push(this.#part(part, args.get(index)));
    if (chunk.usageMetadata !== undefined) out.push({ type: "usage", usage: mapGeminiUsage(chunk.usageMetadata) });
    // A blocked prompt gets no candidate, only the reason it was blocked for.
    const blocked = candidate === undefined && typeof chunk.promptFeedback?.blockReason === "string" ? "SAFETY" : undefined;
    const reason = candidate?.finishReason ?? blocked;
    if (reason !== undefined && reason !== "" && !this.#finished) {
      this.#finished = true;
      out.push({ type: "finish", reason: this.#reason(reason) });
    }
    return out;
  }

  #part(part: WirePart, args: string | undefined): StreamChunk {
    const signature = typeof part.thoughtSignature === "string" ? { thoughtSignature: part.thoughtSignature } : {};
    const call = part.functionCall;
    const raw = call === undefined ? undefined : rawArgs(call, args);
    if (call !== undefined && Object.keys(part).every((key) => key === "functionCall" || key === "thoughtSignature")) {
      const { id, name } = call;
      if (typeof name !== "string" || name === "" || (id !== undefined && (typeof id !== "string" || id === ""))) {
        throw new LlmError("LLM_MALFORMED_STREAM", `a function call lacks its name or has an empty id: ${truncateText(JSON.stringify(call), 120)}`);
      }
      // A call Gemini did not name gets an id of dsh's (logged), and goes back without one.
      const callId = id ?? `${this.#responseId ?? randomUUID()}-${this.#calls}`;
      return { type: "tool-call-delta", index: this.#calls++, callId, name, argumentsDelta: raw!, ...(id === undefined ? {} : { itemId: id }), ...signature };
    }
    if (isTextPart(part)) return { type: part.thought === true ? "reasoning-delta" : "text-delta", text: part.text as string, ...signature };
    return { type: "provider-item", api: GEMINI_API, item: part };
  }

  #reason(reason: string): FinishReason {
    if (reason === "STOP") return this.#calls > 0 ? "tool-calls" : "stop";
    if (reason === "MAX_TOKENS") return "length";
    return FILTERED.has(reason) ? "content-filter" : "other";
  }
}

/** A call's raw argument text, as read at its part's place in the chunk; a call without args has `{}`. */
function rawArgs(call: JsonObject, args: string | undefined): string {
  if (!("args" in call)) return "{}";
  const value = call.args;
  const raw = value !== null && typeof value === "object" && !Array.isArray(value) ? args : undefined;
  if (raw === undefined) throw new LlmError("LLM_MALFORMED_STREAM", `the arguments of a function call are not an object: ${truncateText(JSON.stringify(call), 120)}`);
  return raw;
}

/**
 * Parses a `streamGenerateContent?alt=sse` body into neutral chunks. The answer is whole once a chunk
 * names its finish reason; a body that ends before is `LLM_STREAM_INTERRUPTED`, and no bytes for
 * `idleTimeoutMs` is `LLM_TIMEOUT` (both retryable). An error object in the stream fails the attempt.
 */
export function parseGeminiStream(body: ReadableStream<Uint8Array>, idleTimeoutMs: number): AsyncGenerator<StreamChunk> {
  return readSseStream(body, idleTimeoutMs, new GeminiFolder(), "the model finished");
}
