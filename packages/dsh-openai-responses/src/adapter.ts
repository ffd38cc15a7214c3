import { LlmError, endpointUrl, postStreaming, redactError, redactor, streamResponse, unsentOnFailure, type AdapterContext, type FrozenGenerateOptions, type JsonObject, type LlmAdapter, type ModelDefaults, type ModelPrice, type Redactor, type StreamChunk } from "dsh-llm";
import { RESPONSES_MODELS, frozenResponsesCatalog, lookupResponsesModel, responsesDefaults, responsesPrice, type ResponsesCatalog } from "./catalog.js";
import { serializeRequestBytes } from "./serialize.js";
import { parseResponsesStream } from "./stream.js";
import { responsesWireProfile } from "./wire-profile.js";

/** Options of {@link ResponsesAdapter}. */
export interface ResponsesAdapterOptions {
  /** The `config.provider` name this adapter serves (default `openai-responses`). */
  readonly provider?: string;
  /** The API root, e.g. `https://api.openai.com/v1`; `/responses` is appended to its path (a query string is kept). */
  readonly baseUrl: string;
  /** The API key. Kept private to the adapter, sent only as a bearer token, redacted from every error message. */
  readonly apiKey?: string | undefined;
  /** The models, their defaults and cache controls (default {@link RESPONSES_MODELS}); a retired name is refused before anything is sent. */
  readonly catalog?: ResponsesCatalog;
  /** Fails an attempt that receives no bytes for this long (default 120 s). */
  readonly idleTimeoutMs?: number;
  /** Fails an attempt whose response headers do not arrive within this long (default: `idleTimeoutMs`). */
  readonly headersTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** OpenAI's Responses API adapter, stateless: one streamed attempt per call, every earlier item sent back from the log. */
export class ResponsesAdapter implements LlmAdapter {
  readonly provider: string;
  readonly #url: string;
  readonly #authorization: string | undefined;
  readonly #redact: Redactor;
  readonly #catalog: ResponsesCatalog;
  readonly #idleTimeoutMs: number;
  readonly #headersTimeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ResponsesAdapterOptions) {
    this.provider = options.provider ?? "openai-responses";
    this.#url = endpointUrl(options.baseUrl, "/responses").href;
    this.#authorization = options.apiKey === undefined ? undefined : `Bearer ${options.apiKey}`;
    this.#redact = redactor([options.apiKey]);
    this.#catalog = frozenResponsesCatalog(options.catalog ?? RESPONSES_MODELS);
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.#headersTimeoutMs = options.headersTimeoutMs ?? this.#idleTimeoutMs;
    this.#fetch = options.fetch ?? fetch;
  }

  /** The effort (and on GPT-5.6 and later the `rolling-v1` breakpoint policy) sent for `model` when the caller chose none; a retired name throws `LLM_MODEL_RETIRED`. */
  modelDefaults(model: string): ModelDefaults {
    return responsesDefaults(this.#catalog, model);
  }

  /** The wire profile the header logs: whether `model` takes explicit cache breakpoints. */
  wireProfile(model: string): JsonObject {
    return responsesWireProfile(this.#breakpoints(model));
  }

  /** What `model` costs per million tokens, from the adapter's catalog (`undefined` when it has no price). */
  price(model: string): ModelPrice | undefined {
    return responsesPrice(this.#catalog, model);
  }

  /** The text with this adapter's key (and a start of it a cut left at the end) redacted. */
  redact(text: string): string {
    return this.#redact(text);
  }

  async *stream(request: FrozenGenerateOptions, context: AdapterContext): AsyncGenerator<StreamChunk> {
    try {
      const body = await unsentOnFailure(() => serializeRequestBytes(request, { breakpoints: this.#breakpoints(request.config.model), attachments: context.attachments }));
      const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
      if (this.#authorization !== undefined) headers.authorization = this.#authorization;
      const response = await postStreaming({ url: this.#url, headers, body, signal: context.signal, headersTimeoutMs: this.#headersTimeoutMs, fetch: this.#fetch });
      yield* streamResponse(response, (stream) => parseResponsesStream(stream, this.#idleTimeoutMs), context.signal);
    } catch (error) {
      throw error instanceof LlmError ? redactError(error, this.#redact) : error;
    }
  }

  #breakpoints(model: string): boolean {
    return lookupResponsesModel(this.#catalog, model)?.cacheControls === "breakpoints";
  }
}
