import { LlmError, type AdapterContext, type FrozenGenerateOptions, type LlmAdapter, type ModelDefaults, type StreamChunk } from "dsh-llm";
import { httpError } from "./errors.js";
import { serializeRequest, type Dialect } from "./serialize.js";
import { parseChatCompletionStream } from "./stream.js";

/** Options of {@link ChatCompletionsAdapter}. */
export interface ChatCompletionsAdapterOptions {
  /** The `config.provider` name this adapter serves, e.g. `deepseek`. */
  readonly provider: string;
  readonly dialect: Dialect;
  /** The API root, e.g. `https://api.deepseek.com`; `/chat/completions` is appended. */
  readonly baseUrl: string;
  /** The API key. Kept private to the adapter, sent only as a bearer token, never logged. */
  readonly apiKey?: string | undefined;
  /** Defaults the provider applies per model, recorded as such in the header. */
  readonly modelDefaults?: (model: string) => ModelDefaults;
  /** Fails an attempt that receives no bytes for this long (default 120 s). */
  readonly idleTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** The OpenAI-compatible Chat Completions adapter: one streamed attempt per call. */
export class ChatCompletionsAdapter implements LlmAdapter {
  readonly provider: string;
  readonly dialect: Dialect;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #modelDefaults: ((model: string) => ModelDefaults) | undefined;
  readonly #idleTimeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ChatCompletionsAdapterOptions) {
    this.provider = options.provider;
    this.dialect = options.dialect;
    this.#url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    this.#apiKey = options.apiKey;
    this.#modelDefaults = options.modelDefaults;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.#fetch = options.fetch ?? fetch;
  }

  modelDefaults(model: string): ModelDefaults {
    return this.#modelDefaults?.(model) ?? {};
  }

  async *stream(request: FrozenGenerateOptions, context: AdapterContext): AsyncGenerator<StreamChunk> {
    const body = await serializeRequest(request, { dialect: this.dialect, attachments: context.attachments });
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    let response: Response;
    try {
      response = await this.#fetch(this.#url, { method: "POST", headers, body, ...(context.signal ? { signal: context.signal } : {}) });
    } catch (cause) {
      if (context.signal?.aborted === true) throw new LlmError("LLM_ABORTED", "the request was aborted", { cause });
      throw new LlmError("LLM_NETWORK", `cannot reach ${this.#url}: ${networkReason(cause)}`, { cause });
    }
    if (!response.ok) {
      throw httpError(response.status, await response.text().catch(() => ""), response.headers.get("retry-after"));
    }
    if (response.body === null) throw new LlmError("LLM_STREAM_INTERRUPTED", "the provider sent no body");
    try {
      yield* parseChatCompletionStream(response.body, this.#idleTimeoutMs);
    } catch (error) {
      if (context.signal?.aborted === true) throw new LlmError("LLM_ABORTED", "the request was aborted", { cause: error });
      if (error instanceof LlmError) throw error;
      throw new LlmError("LLM_STREAM_INTERRUPTED", `the stream broke: ${networkReason(error)}`, { cause: error });
    }
  }
}

function networkReason(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  if (inner instanceof Error) return (inner as NodeJS.ErrnoException).code ?? inner.message;
  return String(inner);
}
