import type { ModelPrice } from "./price.js";
import type { AttachmentStore } from "dsh-attachments";
import type { LlmCallConfig } from "./config.js";
import type { JsonObject } from "./json.js";
import type { FrozenGenerateOptions } from "./request.js";
import type { StreamChunk } from "./stream.js";

/** What an adapter may use while serving one attempt. */
export interface AdapterContext {
  /** The store image references resolve through, during serialization only. */
  readonly attachments: AttachmentStore | undefined;
  /** Cancels the attempt; the same signal as the request's, if it has one. */
  readonly signal: AbortSignal | undefined;
}

/** Config values a provider applies when the caller does not choose them. */
export type ModelDefaults = Partial<Pick<LlmCallConfig, "maxTokens" | "reasoningEffort" | "cachePolicy" | "cacheTtl">>;

/**
 * A provider adapter. `stream` serves exactly one attempt of a frozen request: it serializes the
 * request (resolving attachments through `context.attachments`), sends it, and yields neutral chunks.
 * Failures are thrown as `LlmError`s whose `retryable` flag the caller's retry policy reads.
 */
export interface LlmAdapter {
  /** The `config.provider` value this adapter serves. */
  readonly provider: string;
  /** Streams one attempt of `request`. */
  stream(request: FrozenGenerateOptions, context: AdapterContext): AsyncIterable<StreamChunk>;
  /** The defaults the provider applies for `model`, so they can be recorded as such. */
  modelDefaults?(model: string): ModelDefaults;
  /**
   * The adapter's settings that shape the body for `model` beyond the request itself (a dialect, the
   * catalog's rules for the model), as JSON. The loop logs it in the header snapshot, so a rebuild
   * serializes from the log rather than from whatever configuration the rebuilding process has.
   */
  wireProfile?(model: string): JsonObject | undefined;
  /** What `model` costs, from the adapter's catalog; `undefined` for a model without a known price. Never shapes a request. */
  price?(model: string): ModelPrice | undefined;
  /**
   * Removes the adapter's credentials from a text. The runtime passes the message of every failure of
   * this adapter's calls through it, also those found after the stream (an answer that quotes a key
   * back as a tool-call id), so no error that may be logged holds key material.
   */
  redact?(text: string): string;
}
