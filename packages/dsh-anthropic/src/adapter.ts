import {
  LlmError,
  endpointUrl,
  postStreaming,
  redactError,
  redactor,
  streamResponse,
  unsentOnFailure,
  type AdapterContext,
  type JsonObject,
  type FrozenGenerateOptions,
  type LlmAdapter,
  type ModelDefaults,
  type ModelPrice,
  type Redactor,
  type StreamChunk,
} from "dsh-llm";
import { CLAUDE_MODELS, claudeDefaults, claudePriceOf, frozenCatalog, lookupClaudeModel, type ClaudeCatalog } from "./catalog.js";
import { CACHE_DIAGNOSIS_BETA } from "./diagnosis.js";
import { serializeRequestBytes } from "./serialize.js";
import { messagesWireProfile } from "./wire-profile.js";
import { parseMessagesStream } from "./stream.js";

/** The `anthropic-version` header every request carries. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Options of {@link AnthropicAdapter}. */
export interface AnthropicAdapterOptions {
  /** The `config.provider` name this adapter serves (default `anthropic`). */
  readonly provider?: string;
  /**
   * The API root (default `https://api.anthropic.com`); `/v1/messages` is appended to its path. Other
   * Anthropic-format endpoints work too, e.g. `https://api.deepseek.com/anthropic`.
   */
  readonly baseUrl?: string;
  /** The API key, sent only as `x-api-key` and redacted from every error message. */
  readonly apiKey?: string | undefined;
  /** The models known to the adapter (default `CLAUDE_MODELS`): thinking style, sampling rules, retired names. */
  readonly catalog?: ClaudeCatalog;
  /** Defaults recorded in the header as adapter defaults (default: the catalog's output limit, `rolling-v1`, `5m`). */
  readonly modelDefaults?: (model: string) => ModelDefaults;
  /** Fails an attempt that receives no bytes for this long (default 120 s). */
  readonly idleTimeoutMs?: number;
  /** Fails an attempt whose response headers do not arrive within this long (default: `idleTimeoutMs`). */
  readonly headersTimeoutMs?: number;
  /**
   * Whether the endpoint ignores `cache_control` and caches prefixes on its own, as DeepSeek's
   * Anthropic-format API does (default: true for `api.deepseek.com`). Markers are sent either way; the
   * wire profile records it, so `dsh cache` explains misses by the endpoint's own rules.
   */
  readonly automaticCache?: boolean;
  readonly fetch?: typeof fetch;
}

/** Hosts whose Anthropic-format API ignores `cache_control`. */
const AUTOMATIC_CACHE_HOSTS: ReadonlySet<string> = new Set(["api.deepseek.com"]);

/** The Messages API adapter: one streamed attempt per call, with the logged breakpoint policy's markers. */
export class AnthropicAdapter implements LlmAdapter {
  readonly provider: string;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #redact: Redactor;
  readonly #catalog: ClaudeCatalog;
  readonly #modelDefaults: ((model: string) => ModelDefaults) | undefined;
  readonly #idleTimeoutMs: number;
  readonly #headersTimeoutMs: number;
  readonly #automaticCache: boolean;
  readonly #fetch: typeof fetch;

  constructor(options: AnthropicAdapterOptions = {}) {
    this.provider = options.provider ?? "anthropic";
    this.#url = endpointUrl(options.baseUrl ?? "https://api.anthropic.com", "/v1/messages").href;
    this.#automaticCache = options.automaticCache ?? AUTOMATIC_CACHE_HOSTS.has(new URL(this.#url).hostname);
    this.#apiKey = options.apiKey;
    this.#redact = redactor([options.apiKey]);
    this.#catalog = frozenCatalog(options.catalog ?? CLAUDE_MODELS);
    this.#modelDefaults = options.modelDefaults;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.#headersTimeoutMs = options.headersTimeoutMs ?? this.#idleTimeoutMs;
    this.#fetch = options.fetch ?? fetch;
  }

  /** The defaults for `model`; a retired name throws `LLM_MODEL_RETIRED`. */
  modelDefaults(model: string): ModelDefaults {
    const defaults = claudeDefaults(this.#catalog, model);
    return this.#modelDefaults === undefined ? defaults : this.#modelDefaults(model);
  }

  /** What `model` costs per million tokens, from the adapter's catalog (`undefined` when it has no price). */
  price(model: string): ModelPrice | undefined {
    return claudePriceOf(this.#catalog, model);
  }

  /** The text with this adapter's key (and a start of it a cut left at the end) redacted. */
  redact(text: string): string {
    return this.#redact(text);
  }

  /** The wire profile the header logs: the catalog's rules for `model` (thinking style, sampling), which shape the body. */
  wireProfile(model: string): JsonObject {
    return messagesWireProfile(lookupClaudeModel(this.#catalog, model), this.#automaticCache);
  }

  async *stream(request: FrozenGenerateOptions, context: AdapterContext): AsyncGenerator<StreamChunk> {
    try {
      const body = await unsentOnFailure(async () => {
        lookupClaudeModel(this.#catalog, request.config.model);
        return serializeRequestBytes(request, { attachments: context.attachments, catalog: this.#catalog });
      });
      const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream", "anthropic-version": ANTHROPIC_VERSION };
      if (this.#apiKey !== undefined) headers["x-api-key"] = this.#apiKey;
      if (request.config.cacheDiagnostics === true) headers["anthropic-beta"] = CACHE_DIAGNOSIS_BETA;
      const response = await postStreaming({ url: this.#url, headers, body, signal: context.signal, headersTimeoutMs: this.#headersTimeoutMs, fetch: this.#fetch });
      const comparing = request.config.cacheDiagnostics === true && request.previousResponseId !== undefined;
      yield* streamResponse(response, (stream) => parseMessagesStream(stream, this.#idleTimeoutMs, { comparing }), context.signal);
    } catch (error) {
      throw error instanceof LlmError ? redactError(error, this.#redact) : error;
    }
  }
}


