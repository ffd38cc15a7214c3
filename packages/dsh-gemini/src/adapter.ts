import { LlmError, endpointUrl, postStreaming, redactError, redactor, streamResponse, unsentOnFailure, type AdapterContext, type FrozenGenerateOptions, type JsonObject, type LlmAdapter, type ModelDefaults, type ModelPrice, type Redactor, type StreamChunk } from "dsh-llm";
import { GEMINI_MODELS, frozenGeminiCatalog, geminiDefaults, geminiPrice, lookupGeminiModel, thinkingLevelOf, type GeminiCatalog } from "./catalog.js";
import { serializeRequestBytes } from "./serialize.js";
import { parseGeminiStream } from "./stream.js";
import { geminiWireProfile } from "./wire-profile.js";

/** Options of {@link GeminiAdapter}. */
export interface GeminiAdapterOptions {
  /** The `config.provider` name this adapter serves (default `gemini`). */
  readonly provider?: string;
  /** The API root, e.g. `https://generativelanguage.googleapis.com/v1beta`; `/models/{model}:streamGenerateContent?alt=sse` is appended. */
  readonly baseUrl: string;
  /** The API key. Kept private to the adapter, sent only in the `x-goog-api-key` header (never in the URL), redacted from every error message. */
  readonly apiKey?: string | undefined;
  /** The models, their thinking levels and prices (default {@link GEMINI_MODELS}); a retired name is refused before anything is sent. */
  readonly catalog?: GeminiCatalog;
  /** Fails an attempt that receives no bytes for this long (default 120 s). */
  readonly idleTimeoutMs?: number;
  /** Fails an attempt whose response headers do not arrive within this long (default: `idleTimeoutMs`). */
  readonly headersTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** Google's Gemini API adapter: one streamed attempt per call, every earlier part (and its signature) sent back from the log. */
export class GeminiAdapter implements LlmAdapter {
  readonly provider: string;
  readonly #root: URL;
  readonly #apiKey: string | undefined;
  readonly #redact: Redactor;
  readonly #catalog: GeminiCatalog;
  readonly #idleTimeoutMs: number;
  readonly #headersTimeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: GeminiAdapterOptions) {
    this.provider = options.provider ?? "gemini";
    const url = endpointUrl(options.baseUrl, "");
    if (url.searchParams.has("key")) throw new LlmError("LLM_INVALID_REQUEST", "baseUrl carries a key in its query: give the key as apiKey, which goes in a header", { retryable: false });
    this.#root = url;
    this.#apiKey = options.apiKey;
    this.#redact = redactor([options.apiKey]);
    this.#catalog = frozenGeminiCatalog(options.catalog ?? GEMINI_MODELS);
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.#headersTimeoutMs = options.headersTimeoutMs ?? this.#idleTimeoutMs;
    this.#fetch = options.fetch ?? fetch;
  }

  /** The thinking level sent for `model` when the caller chose none; a retired name throws `LLM_MODEL_RETIRED`. */
  modelDefaults(model: string): ModelDefaults {
    return geminiDefaults(this.#catalog, model);
  }

  /** The wire profile the header logs: `{api: "gemini"}`. */
  wireProfile(): JsonObject {
    return geminiWireProfile();
  }

  /** What `model` costs per million tokens, from the adapter's catalog (`undefined` when it has no price). */
  price(model: string): ModelPrice | undefined {
    return geminiPrice(this.#catalog, model);
  }

  /** The text with this adapter's key (and a start of it a cut left at the end) redacted. */
  redact(text: string): string {
    return this.#redact(text);
  }

  /** The URL of one streamed call to `model`. */
  url(model: string): string {
    const url = new URL(this.#root.href);
    url.pathname = `${url.pathname}/models/${encodeURIComponent(model)}:streamGenerateContent`;
    url.searchParams.set("alt", "sse");
    return url.href;
  }

  async *stream(request: FrozenGenerateOptions, context: AdapterContext): AsyncGenerator<StreamChunk> {
    try {
      const { model, reasoningEffort } = request.config;
      const body = await unsentOnFailure(async () => {
        // Refused before any byte is sent: a retired model, or a thinking level the model does not take.
        lookupGeminiModel(this.#catalog, model);
        if (reasoningEffort !== undefined) thinkingLevelOf(reasoningEffort, model, this.#catalog);
        return serializeRequestBytes(request, { attachments: context.attachments });
      });
      const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
      if (this.#apiKey !== undefined) headers["x-goog-api-key"] = this.#apiKey;
      const response = await postStreaming({ url: this.url(model), headers, body, signal: context.signal, headersTimeoutMs: this.#headersTimeoutMs, fetch: this.#fetch });
      yield* streamResponse(response, (stream) => parseGeminiStream(stream, this.#idleTimeoutMs), context.signal);
    } catch (error) {
      throw error instanceof LlmError ? redactError(error, this.#redact) : error;
    }
  }
}
