import { LlmError, type CacheDiagnosis, type FinishReason, type FrozenGenerateOptions, type LlmAdapter, type ModelDefaults, type StreamChunk } from "dsh-llm";

/** One scripted answer: what to stream, or the failure to throw. */
export interface ScriptedAnswer {
  readonly reasoning?: string;
  readonly text?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: string }[];
  readonly finishReason?: FinishReason;
  /** Thrown instead of answering (after `partialText` was streamed, if given). */
  readonly error?: LlmError;
  readonly partialText?: string;
  /** Waits for the request's signal to abort instead of answering. */
  readonly hang?: boolean;
  /** The answer's id and cache diagnosis, as a provider reports them. */
  readonly responseId?: string;
  readonly cacheDiagnosis?: CacheDiagnosis;
}

/** A test adapter that answers from a script and records every request object it was given. */
export class ScriptedAdapter implements LlmAdapter {
  readonly provider = "scripted";
  readonly received: FrozenGenerateOptions[] = [];
  #calls = 0;

  constructor(
    readonly script: (request: FrozenGenerateOptions, index: number) => ScriptedAnswer,
    readonly defaults: ModelDefaults = { maxTokens: 4096 },
  ) {}

  modelDefaults(): ModelDefaults {
    return this.defaults;
  }

  async *stream(request: FrozenGenerateOptions): AsyncGenerator<StreamChunk> {
    this.received.push(request);
    const index = this.#calls++;
    const answer = this.script(request, index);
    if (answer.partialText !== undefined) yield { type: "text-delta", text: answer.partialText };
    if (answer.error !== undefined) throw answer.error;
    if (answer.hang === true) {
      await new Promise((_resolve, reject) =>
        request.signal?.addEventListener("abort", () => reject(new LlmError("LLM_ABORTED", "aborted")), { once: true }),
      );
    }
    if (answer.responseId !== undefined || answer.cacheDiagnosis !== undefined) {
      yield { type: "response-info", ...(answer.responseId === undefined ? {} : { responseId: answer.responseId }), ...(answer.cacheDiagnosis === undefined ? {} : { cacheDiagnosis: answer.cacheDiagnosis }) };
    }
    if (answer.reasoning !== undefined) yield { type: "reasoning-delta", text: answer.reasoning };
    if (answer.text !== undefined) yield { type: "text-delta", text: answer.text };
    for (const [i, call] of (answer.toolCalls ?? []).entries()) {
      yield { type: "tool-call-delta", index: i, callId: `call-${index}-${i}`, name: call.name, argumentsDelta: call.arguments };
    }
    const tokens = JSON.stringify(request.messages).length;
    yield { type: "usage", usage: { inputTokens: tokens, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    yield { type: "finish", reason: answer.finishReason ?? ((answer.toolCalls?.length ?? 0) > 0 ? "tool-calls" : "stop") };
  }
}
