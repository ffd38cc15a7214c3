import { LlmError, postStreaming, unsentOnFailure, type JsonObject, redactError, redactor, streamResponse, type AdapterContext, type Redactor, type FrozenGenerateOptions, type LlmAdapter, type ModelDefaults, type ModelPrice, type StreamChunk } from "dsh-llm";
import { catalogDefaults, catalogPrice, frozenCatalog, lookupModel, type ModelCatalog } from "./catalog.js";
import { serializeRequestBytes, type Dialect } from "./serialize.js";
import { chatWireProfile } from "./wire-profile.js";
import { parseChatCompletionStream } from "./stream.js";

/** Options of {@link ChatCompletionsAdapter}. */
export interface ChatCompletionsAdapterOptions {
  /** The `config.provider` name this adapter serves, e.g. `deepseek`. */
  readonly provider: string;
  readonly dialect: Dialect;
  /**
   * The API root, e.g. `https://api.deepseek.com`; `/chat/completions` is appended to its path (a
   * query string is kept). Credentials in it (`https://user:password@host`) are sent as basic auth.
   */
  readonly baseUrl: string;
  /** The API key. Kept private to the adapter, sent only as a bearer token, redacted from every error message. */
  readonly apiKey?: string | undefined;
  /**
   * The provider's models (`DEEPSEEK_MODELS`, `OPENAI_MODELS`): their defaults are supplied and
   * recorded as adapter defaults, and a retired name is refused before anything is sent.
   */
  readonly catalog?: ModelCatalog;
  /** Defaults the provider applies per model, recorded as such in the header (instead of the catalog's). */
  readonly modelDefaults?: (model: string) => ModelDefaults;
  /** Fails an attempt that receives no bytes for this long (default 120 s). */
  readonly idleTimeoutMs?: number;
  /** Fails an attempt whose response headers do not arrive within this long (default: `idleTimeoutMs`). */
  readonly headersTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** The OpenAI-compatible Chat Completions adapter: one streamed attempt per call. */
export class ChatCompletionsAdapter implements LlmAdapter {
  readonly provider: string;
  readonly dialect: Dialect;
  readonly #endpoint: Endpoint;
  readonly #catalog: ModelCatalog | undefined;
  readonly #modelDefaults: ((model: string) => ModelDefaults) | undefined;
  readonly #idleTimeoutMs: number;
  readonly #headersTimeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ChatCompletionsAdapterOptions) {
    this.provider = options.provider;
    this.dialect = options.dialect;
    this.#endpoint = endpoint(options.baseUrl, options.apiKey);
    this.#catalog = options.catalog === undefined ? undefined : frozenCatalog(options.catalog);
    this.#modelDefaults = options.modelDefaults;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.#headersTimeoutMs = options.headersTimeoutMs ?? this.#idleTimeoutMs;
    this.#fetch = options.fetch ?? fetch;
  }

  /** The defaults for `model`: from `modelDefaults` when given, else from the catalog; a retired name throws `LLM_MODEL_RETIRED`. */
  modelDefaults(model: string): ModelDefaults {
    if (this.#modelDefaults === undefined) return this.#catalog === undefined ? {} : catalogDefaults(this.#catalog, model);
    // Own defaults replace the catalog's, but a retired name is still refused.
    if (this.#catalog !== undefined) lookupModel(this.#catalog, model);
    return this.#modelDefaults(model);
  }

  /** What `model` costs per million tokens, from the adapter's catalog (`undefined` without a catalog or a known price). */
  price(model: string): ModelPrice | undefined {
    return this.#catalog === undefined ? undefined : catalogPrice(this.#catalog, model);
  }

  /** The text with this adapter's key (and a start of it a cut left at the end) redacted. */
  redact(text: string): string {
    return this.#endpoint.redact(text);
  }

  /** The wire profile the header logs: the Chat Completions dialect, the one setting that shapes the body. */
  wireProfile(): JsonObject {
    return chatWireProfile(this.dialect);
  }

  async *stream(request: FrozenGenerateOptions, context: AdapterContext): AsyncGenerator<StreamChunk> {
    const { authorization, redact } = this.#endpoint;
    try {
      const body = await unsentOnFailure(async () => {
        if (this.#catalog !== undefined) lookupModel(this.#catalog, request.config.model);
        return serializeRequestBytes(request, { dialect: this.dialect, attachments: context.attachments });
      });
      const response = await this.#send(body, authorization, context.signal);
      yield* streamResponse(response, (stream) => parseChatCompletionStream(stream, this.#idleTimeoutMs), context.signal);
    } catch (error) {
      throw error instanceof LlmError ? redactError(error, redact) : error;
    }
  }

  /** POSTs the body and resolves the response once its headers arrived, within the headers timeout. */
  #send(body: Uint8Array, authorization: string | undefined, signal: AbortSignal | undefined): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (authorization !== undefined) headers.authorization = authorization;
    return postStreaming({ url: this.#endpoint.url, headers, body, signal, headersTimeoutMs: this.#headersTimeoutMs, fetch: this.#fetch });
  }
}

/** Where and how an adapter sends: the endpoint URL (without credentials), its authorization, and what to redact. */
interface Endpoint {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly redact: Redactor;
}

function endpoint(baseUrl: string, apiKey: string | undefined): Endpoint {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new LlmError("LLM_INVALID_REQUEST", "baseUrl is not a URL", { retryable: false });
  }
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/chat/completions`;
  const basic = user === "" && password === "" ? undefined : `${user}:${password}`;
  if (basic !== undefined && apiKey !== undefined) {
    throw new LlmError("LLM_INVALID_REQUEST", "baseUrl carries credentials and an apiKey is set: give one or the other", { retryable: false });
  }
  const authorization = apiKey !== undefined ? `Bearer ${apiKey}` : basic === undefined ? undefined : `Basic ${Buffer.from(basic).toString("base64")}`;
  return { url: url.href, authorization, redact: redactor([apiKey, password, basic]) };
}
