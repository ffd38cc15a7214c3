import { compactionEndEvent, compactionStartEvent, compactionSummaryEvent, requestDispatchEvent, requestRetryEvent, stepEndEvent } from "dsh-agent";
import {
  isAgentLoopRequest,
  LlmError,
  type AdapterContext,
  type AssistantContent,
  type DeepReadonly,
  type FinishReason,
  type FrozenGenerateOptions,
  type JsonObject,
  type LlmAdapter,
  type LlmErrorCode,
  type ModelDefaults,
  type StreamChunk,
  type TokenUsage,
} from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { assistantMessageEvent } from "dsh-surface";
import { FixtureError } from "./errors.js";

type LoggedError = { readonly code: string; readonly message: string; readonly status?: number };

/** What one recorded call answered: the model's chunks, or the failure it ended with. */
type Outcome =
  | { readonly kind: "answer"; readonly chunks: readonly StreamChunk[] }
  | { readonly kind: "error"; readonly error: LoggedError };

/** One recorded call: the retryable failures of its earlier attempts, then its outcome. */
interface Recorded {
  readonly where: string;
  readonly retries: readonly { readonly error: LoggedError; readonly delayMs: number }[];
  readonly outcome: Outcome;
}

/** What a provider said of its answer besides the content, as the `step/end` logged it. */
type AnswerInfo = Pick<Extract<StreamChunk, { type: "response-info" }>, "responseId" | "cacheDiagnosis">;

/** The chunks that stream `content` back as the assistant message it was, with the answer's id and cache diagnosis when logged. */
export function answerChunks(content: DeepReadonly<AssistantContent[]>, finish: FinishReason, usage: TokenUsage | undefined, info: AnswerInfo = {}): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  if (info.responseId !== undefined || info.cacheDiagnosis !== undefined) chunks.push({ type: "response-info", ...info });
  let index = 0;
  // Each logged block streams as a block of its own, so consecutive blocks come back apart, as logged.
  for (const [block, value] of content.entries()) {
    const signed = value.type !== "redacted-reasoning" && value.type !== "provider-item" && value.thoughtSignature !== undefined ? { thoughtSignature: value.thoughtSignature } : {};
    if (value.type === "text") chunks.push({ type: "text-delta", text: value.text, block, ...(value.itemId === undefined ? {} : { itemId: value.itemId }), ...signed });
    else if (value.type === "redacted-reasoning") chunks.push({ type: "redacted-reasoning", data: value.data });
    else if (value.type === "provider-item") chunks.push({ type: "provider-item", api: value.api, item: value.item });
    else if (value.type === "reasoning") {
      chunks.push({ type: "reasoning-delta", text: value.text, block, ...signed });
      if (value.signature !== undefined) chunks.push({ type: "reasoning-signature", signature: value.signature, block });
    } else {
      const itemId = value.itemId === undefined ? {} : { itemId: value.itemId };
      chunks.push({ type: "tool-call-delta", index: index++, callId: value.callId, name: value.name, argumentsDelta: value.arguments, ...itemId, ...signed });
    }
  }
  if (usage !== undefined) chunks.push({ type: "usage", usage });
  chunks.push({ type: "finish", reason: finish });
  return chunks;
}

function loggedError(error: LoggedError): LlmError {
  return new LlmError(error.code as LlmErrorCode, error.message, { retryable: false, ...(error.status === undefined ? {} : { status: error.status }) });
}

/** The recorded answer of the loop request dispatched at `events[at]`. */
function loopCall(events: readonly LogEvent[], at: number): Recorded {
  const dispatch = events[at]!;
  if (!requestDispatchEvent.is(dispatch)) throw new FixtureError("FIXTURE_INVALID", `seq ${at} is not a request/dispatch`);
  const { turn, step } = dispatch.data;
  const where = `turn ${turn} step ${step} (seq ${at})`;
  const retries: Recorded["retries"][number][] = [];
  let content: DeepReadonly<AssistantContent[]> | undefined;
  for (const event of events.slice(at + 1)) {
    if (requestRetryEvent.is(event)) retries.push({ error: event.data.error, delayMs: event.data.delayMs });
    else if (assistantMessageEvent.is(event) && content === undefined) content = event.data.content;
    else if (stepEndEvent.is(event)) {
      const { reason, finishReason, usage, error, responseId, cacheDiagnosis } = event.data;
      const info = { ...(responseId === undefined ? {} : { responseId }), ...(cacheDiagnosis === undefined ? {} : { cacheDiagnosis }) };
      if (content !== undefined) return { where, retries, outcome: { kind: "answer", chunks: answerChunks(content, finishReason ?? "stop", usage, info) } };
      if (reason === "error" && error !== undefined) return { where, retries, outcome: { kind: "error", error } };
      throw new FixtureError("FIXTURE_UNREPLAYABLE", `${where} ended ${reason} without an answer: a keyless replay cannot reproduce when that happened`);
    }
  }
  throw new FixtureError("FIXTURE_UNREPLAYABLE", `${where} never ended: the log stops inside it`);
}

/** The recorded outcome of the compaction summary call begun at `events[at]`: its summary, and its usage where the log has it. */
function summaryCall(events: readonly LogEvent[], at: number): Recorded {
  const where = `compaction at seq ${at}`;
  for (const event of events.slice(at + 1)) {
    if (compactionSummaryEvent.is(event)) {
      const { summary, usage } = event.data;
      const chunks: StreamChunk[] = [{ type: "text-delta", text: summary }, ...(usage === undefined ? [] : [{ type: "usage" as const, usage }]), { type: "finish", reason: "stop" }];
      return { where, retries: [], outcome: { kind: "answer", chunks } };
    }
    if (compactionEndEvent.is(event)) {
      if (event.data.error !== undefined) return { where, retries: [], outcome: { kind: "error", error: event.data.error } };
      break;
    }
  }
  throw new FixtureError("FIXTURE_UNREPLAYABLE", `${where} has neither a summary nor a logged failure`);
}

/**
 * The model's recorded side of a session, served back in order: loop requests (marked with
 * `markAgentLoopRequest`) get the recorded answers of the dispatches at or after `fromSeq`, other calls
 * (compaction summaries) the recorded summaries. Running past the end is an error the loop logs.
 */
export class Tape {
  readonly #loop: Recorded[] = [];
  readonly #summaries: Recorded[] = [];
  #nextLoop = 0;
  #nextSummary = 0;
  /** Calls the replay made that the fixture has no answer for. */
  readonly overruns: string[] = [];
  /** Summary calls answered with the placeholder, for want of a recorded summary. */
  placeholders = 0;
  readonly #placeholder: string | undefined;

  /** `placeholderSummary`, when given, answers a summary call past the recorded ones (a what-if's extra compaction). */
  constructor(events: readonly LogEvent[], fromSeq: number, placeholderSummary?: string) {
    this.#placeholder = placeholderSummary;
    for (let seq = fromSeq; seq < events.length; seq++) {
      const event = events[seq]!;
      if (requestDispatchEvent.is(event)) this.#loop.push(loopCall(events, seq));
      else if (compactionStartEvent.is(event)) this.#summaries.push(summaryCall(events, seq));
    }
  }

  /** How many loop answers and summaries the replay has not asked for. */
  get unused(): { readonly loop: number; readonly summaries: number } {
    return { loop: this.#loop.length - this.#nextLoop, summaries: this.#summaries.length - this.#nextSummary };
  }

  /** An adapter serving this tape under `provider`, reporting `defaults` and `wire` as the provider's model defaults and wire profile. */
  adapter(provider: string, defaults?: (model: string) => ModelDefaults, wire?: (model: string) => JsonObject | undefined): LlmAdapter {
    return {
      provider,
      stream: (request, context) => this.#serve(request, context),
      ...(defaults === undefined ? {} : { modelDefaults: defaults }),
      ...(wire === undefined ? {} : { wireProfile: wire }),
    };
  }

  #attempts = new Map<Recorded, number>();

  async *#serve(request: FrozenGenerateOptions, context: AdapterContext): AsyncGenerator<StreamChunk> {
    const loop = isAgentLoopRequest(request);
    const list = loop ? this.#loop : this.#summaries;
    const index = loop ? this.#nextLoop : this.#nextSummary;
    const recorded = list[index];
    if (recorded === undefined && !loop && this.#placeholder !== undefined) {
      this.placeholders++;
      yield { type: "text-delta", text: this.#placeholder };
      yield { type: "finish", reason: "stop" };
      return;
    }
    if (recorded === undefined) {
      const what = loop ? `loop request ${index + 1}` : `summary call ${index + 1}`;
      this.overruns.push(`the replay made ${what}, but the fixture recorded ${list.length}`);
      throw new LlmError("LLM_BAD_REQUEST", `replay: the fixture has no recorded answer for ${what}`, { retryable: false });
    }
    const attempt = this.#attempts.get(recorded) ?? 0;
    this.#attempts.set(recorded, attempt + 1);
    const retry = recorded.retries[attempt];
    if (retry !== undefined) {
      throw new LlmError(retry.error.code as LlmErrorCode, retry.error.message, {
        retryable: true,
        retryAfterSeconds: retry.delayMs / 1000,
        ...(retry.error.status === undefined ? {} : { status: retry.error.status }),
      });
    }
    if (loop) this.#nextLoop++;
    else this.#nextSummary++;
    if (context.signal?.aborted === true) throw new LlmError("LLM_ABORTED", "aborted");
    if (recorded.outcome.kind === "error") throw loggedError(recorded.outcome.error);
    yield* recorded.outcome.chunks;
  }
}
