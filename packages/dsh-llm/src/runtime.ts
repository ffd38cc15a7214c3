import type { ModelPrice } from "./price.js";
import type { AttachmentStore } from "dsh-attachments";
import type { LlmAdapter, ModelDefaults } from "./adapter.js";
import { LlmError } from "./errors.js";
import type { JsonObject } from "./json.js";
import { freezeRequest, isAgentLoopRequest, type FrozenGenerateOptions, type GenerateOptions } from "./request.js";
import { StreamAssembler, type GenerateResult, type StreamChunk } from "./stream.js";
import { redactError } from "./redact.js";
import { markUnsent } from "./unsent.js";

/** What an `llm/stream` listener sees: the frozen request and whether the agent loop sent it. */
export interface LlmStreamEvent {
  readonly request: FrozenGenerateOptions;
  readonly isAgentLoopRequest: boolean;
}

/** Observes every dispatched call. The request it receives is deep-frozen: reading is all it can do. */
export type LlmStreamListener = (event: LlmStreamEvent) => void;

/** Options of {@link LlmRuntime}. */
export interface LlmRuntimeOptions {
  readonly adapters?: readonly LlmAdapter[];
  readonly attachments?: AttachmentStore;
}

/**
 * Dispatches requests to the adapter registered for `config.provider`. Every request is validated and
 * deep-frozen before listeners or adapters see it, so neither can change what is sent.
 */
export class LlmRuntime {
  readonly #adapters = new Map<string, LlmAdapter>();
  readonly #listeners = new Set<LlmStreamListener>();
  readonly #attachments: AttachmentStore | undefined;

  constructor(options: LlmRuntimeOptions = {}) {
    for (const adapter of options.adapters ?? []) this.register(adapter);
    this.#attachments = options.attachments;
  }

  /** Registers `adapter` for its provider; a provider can have only one adapter. */
  register(adapter: LlmAdapter): void {
    if (this.#adapters.has(adapter.provider)) {
      throw new LlmError("LLM_INVALID_REQUEST", `an adapter for provider ${adapter.provider} is already registered`);
    }
    this.#adapters.set(adapter.provider, adapter);
  }

  /** Subscribes to `llm/stream`; returns the unsubscribe function. */
  on(event: "llm/stream", listener: LlmStreamListener): () => void {
    if (event !== "llm/stream") throw new LlmError("LLM_INVALID_REQUEST", `unknown runtime event ${String(event)}`);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The body-shaping settings the adapter of `provider` declares for `model` (`undefined` when it declares none). */
  wireProfile(provider: string, model: string): JsonObject | undefined {
    return this.#adapterFor(provider).wireProfile?.(model);
  }

  /** What `model` costs at `provider`, from its adapter's catalog (`undefined` when no price is known or no adapter is registered). */
  price(provider: string, model: string): ModelPrice | undefined {
    return this.#adapters.get(provider)?.price?.(model);
  }

  /** The defaults the adapter of `provider` applies for `model` (empty when it declares none). */
  modelDefaults(provider: string, model: string): ModelDefaults {
    return this.#adapterFor(provider).modelDefaults?.(model) ?? {};
  }

  /**
   * Streams one attempt of `request`, which is frozen in place if it is not frozen yet. A failure
   * before the adapter runs (an invalid request, no adapter, an abort) is marked unsent.
   */
  async *stream(request: GenerateOptions): AsyncGenerator<StreamChunk> {
    let frozen: FrozenGenerateOptions;
    let adapter: LlmAdapter;
    try {
      frozen = freezeRequest(request);
      adapter = this.#adapterFor(frozen.config.provider);
    } catch (error) {
      throw markUnsent(error);
    }
    const event: LlmStreamEvent = Object.freeze({ request: frozen, isAgentLoopRequest: isAgentLoopRequest(frozen) });
    for (const listener of this.#listeners) listener(event);
    if (frozen.signal?.aborted === true) throw markUnsent(new LlmError("LLM_ABORTED", "the request was aborted before dispatch"));
    yield* adapter.stream(frozen, { attachments: this.#attachments, signal: frozen.signal });
  }

  /**
   * Streams one attempt and assembles the answer; `onChunk` sees every chunk as it arrives. A failure's
   * message has passed through the adapter's `redact`, wherever it arose.
   */
  async generate(request: GenerateOptions, onChunk?: (chunk: StreamChunk) => void): Promise<GenerateResult> {
    const assembler = new StreamAssembler();
    try {
      for await (const chunk of this.stream(request)) {
        assembler.push(chunk);
        onChunk?.(chunk);
      }
      return assembler.result();
    } catch (error) {
      const adapter = this.#adapters.get(request.config.provider);
      if (!(error instanceof LlmError) || adapter?.redact === undefined) throw error;
      throw redactError(error, (text) => adapter.redact!(text));
    }
  }

  #adapterFor(provider: string): LlmAdapter {
    const adapter = this.#adapters.get(provider);
    if (adapter === undefined) {
      const known = [...this.#adapters.keys()].join(", ") || "none";
      throw new LlmError("LLM_NO_ADAPTER", `no adapter for provider ${provider} (registered: ${known})`);
    }
    return adapter;
  }
}
