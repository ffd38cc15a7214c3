import { z } from "zod";
import { describeIssues } from "dsh-base";
import { assistantContentSchema, type AssistantContent } from "./content.js";
import type { JsonObject } from "./json.js";
import { LlmError } from "./errors.js";
import { tokenUsageSchema, type TokenUsage } from "./usage.js";
import { cacheDiagnosisSchema, type CacheDiagnosis } from "./diagnosis.js";

/** Why the model stopped. */
export const finishReasonSchema = z.enum(["stop", "length", "tool-calls", "content-filter", "other"]);
export type FinishReason = z.output<typeof finishReasonSchema>;

/**
 * One piece of a streamed answer, provider-neutral. Tool-call deltas are keyed by `index`. A provider
 * that numbers its content blocks passes the number as `block`: text merges only within one block, so
 * a signed block never takes in text it did not sign. A provider that names its output items passes
 * the name as `itemId`, kept on the block so it can be sent back.
 */
export type StreamChunk =
  /**
   * Text, or reasoning text. A `thoughtSignature` (Gemini's) signs the block the text ends: the delta
   * joins the open block, which then takes no more text.
   */
  | { readonly type: "text-delta"; readonly text: string; readonly block?: number; readonly itemId?: string; readonly thoughtSignature?: string }
  | { readonly type: "reasoning-delta"; readonly text: string; readonly block?: number; readonly thoughtSignature?: string }
  /** Closes the reasoning block being streamed with the provider's signature (a block of its own if none is open). */
  | { readonly type: "reasoning-signature"; readonly signature: string; readonly block?: number }
  /** A whole block of encrypted reasoning. */
  | { readonly type: "redacted-reasoning"; readonly data: string }
  | {
      readonly type: "tool-call-delta";
      readonly index: number;
      readonly callId?: string;
      readonly name?: string;
      readonly argumentsDelta: string;
      readonly itemId?: string;
      /** Gemini's signature of the call's part, sent back with it. */
      readonly thoughtSignature?: string;
    }
  /** A whole output item the provider needs back verbatim (see the `provider-item` block). */
  | { readonly type: "provider-item"; readonly api: string; readonly item: JsonObject }
  | { readonly type: "usage"; readonly usage: TokenUsage }
  /** What the provider says about its answer besides the content: its id, and its cache diagnosis when asked for. */
  | { readonly type: "response-info"; readonly responseId?: string; readonly cacheDiagnosis?: CacheDiagnosis }
  | { readonly type: "finish"; readonly reason: FinishReason };

/** What every answer must be before anyone logs it: valid content blocks and whole, non-negative token counts. */
const resultSchema = z.strictObject({
  content: z.array(assistantContentSchema),
  usage: tokenUsageSchema.optional(),
  responseId: z.string().min(1).optional(),
  cacheDiagnosis: cacheDiagnosisSchema.optional(),
});

/**
 * A whole answer: the assistant content, why it ended, the usage the provider reported, and when the
 * provider says them, the answer's id and its diagnosis of the prompt cache.
 */
export interface GenerateResult {
  readonly content: AssistantContent[];
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage | undefined;
  readonly responseId?: string;
  readonly cacheDiagnosis?: CacheDiagnosis;
}

/** A text or reasoning block as the answer keeps it, with only the fields it has. */
function textBlock(block: Extract<OpenBlock, { type: "text" | "reasoning" }>): AssistantContent {
  const signed = block.thoughtSignature === undefined ? {} : { thoughtSignature: block.thoughtSignature };
  if (block.type === "reasoning") return { type: "reasoning", text: block.text, ...(block.signature === undefined ? {} : { signature: block.signature }), ...signed };
  return { type: "text", text: block.text, ...(block.itemId === undefined ? {} : { itemId: block.itemId }), ...signed };
}

interface OpenToolCall {
  callId: string;
  name: string;
  arguments: string;
  itemId?: string;
  thoughtSignature?: string;
}

type OpenBlock =
  | { type: "text" | "reasoning"; text: string; signature?: string; thoughtSignature?: string; block: number | undefined; itemId: string | undefined }
  | { type: "redacted-reasoning"; data: string }
  | { type: "provider-item"; api: string; item: JsonObject }
  | { type: "tool-call"; call: OpenToolCall };

/**
 * Folds stream chunks into a {@link GenerateResult}. Blocks keep the order in which they first
 * appeared; consecutive deltas of one kind and one provider block merge (a signature closes a
 * reasoning block, so the next reasoning delta opens another, and a signed block is never extended
 * or merged with another); tool calls accumulate by index.
 */
export class StreamAssembler {
  readonly #blocks: OpenBlock[] = [];
  readonly #calls = new Map<number, OpenToolCall>();
  #finishReason: FinishReason | undefined;
  #usage: TokenUsage | undefined;
  #responseId: string | undefined;
  #cacheDiagnosis: CacheDiagnosis | undefined;

  /** Adds one chunk; throws `LLM_MALFORMED_STREAM` for chunks after `finish`. */
  push(chunk: StreamChunk): void {
    if (this.#finishReason !== undefined && chunk.type !== "usage" && chunk.type !== "response-info") {
      throw new LlmError("LLM_MALFORMED_STREAM", `stream sent ${chunk.type} after finish`);
    }
    switch (chunk.type) {
      case "text-delta":
        this.#appendText("text", chunk.text, chunk.block, chunk.itemId, chunk.thoughtSignature);
        break;
      case "reasoning-delta":
        this.#appendText("reasoning", chunk.text, chunk.block, undefined, chunk.thoughtSignature);
        break;
      case "reasoning-signature":
        this.#sign(chunk.signature, chunk.block);
        break;
      case "redacted-reasoning":
        this.#blocks.push({ type: "redacted-reasoning", data: chunk.data });
        break;
      case "provider-item":
        this.#blocks.push({ type: "provider-item", api: chunk.api, item: chunk.item });
        break;
      case "tool-call-delta":
        this.#appendToolCall(chunk);
        break;
      case "usage":
        this.#usage = chunk.usage;
        break;
      case "response-info":
        // A later report completes an earlier one (an id first, the diagnosis with the final usage).
        this.#responseId = chunk.responseId ?? this.#responseId;
        this.#cacheDiagnosis = chunk.cacheDiagnosis ?? this.#cacheDiagnosis;
        break;
      case "finish":
        this.#finishReason = chunk.reason;
        break;
    }
  }

  /** The assembled answer; throws `LLM_STREAM_INTERRUPTED` if the stream never finished. */
  result(): GenerateResult {
    if (this.#finishReason === undefined) {
      throw new LlmError("LLM_STREAM_INTERRUPTED", "stream ended before the model finished");
    }
    const ids = new Set<string>();
    const content: AssistantContent[] = this.#blocks.map((block) => {
      if (block.type === "redacted-reasoning") return { type: block.type, data: block.data };
      if (block.type === "provider-item") return { type: block.type, api: block.api, item: block.item };
      if (block.type !== "tool-call") return textBlock(block);
      const { callId, name, itemId, thoughtSignature } = block.call;
      if (callId === "" || name === "") {
        throw new LlmError("LLM_MALFORMED_STREAM", "stream produced a tool call without an id or a name");
      }
      if (ids.has(callId)) throw new LlmError("LLM_MALFORMED_STREAM", `stream produced two tool calls with id ${callId}`);
      ids.add(callId);
      return { type: "tool-call", callId, name, arguments: block.call.arguments, ...(itemId === undefined ? {} : { itemId }), ...(thoughtSignature === undefined ? {} : { thoughtSignature }) };
    });
    const checked = resultSchema.safeParse({ content, usage: this.#usage, responseId: this.#responseId, cacheDiagnosis: this.#cacheDiagnosis });
    if (!checked.success) {
      throw new LlmError("LLM_MALFORMED_STREAM", `the provider's answer is malformed: ${describeIssues(checked.error.issues)}`);
    }
    return {
      content,
      finishReason: this.#finishReason,
      usage: this.#usage,
      ...(this.#responseId === undefined ? {} : { responseId: this.#responseId }),
      ...(this.#cacheDiagnosis === undefined ? {} : { cacheDiagnosis: this.#cacheDiagnosis }),
    };
  }

  /** The last block, when it is an unsigned block of `type` from the same provider block and item: the one text may extend. */
  #open(type: "text" | "reasoning", block: number | undefined, itemId: string | undefined = undefined): Extract<OpenBlock, { type: "text" | "reasoning" }> | undefined {
    const last = this.#blocks.at(-1);
    return last !== undefined && last.type === type && last.signature === undefined && last.thoughtSignature === undefined && last.block === block && last.itemId === itemId ? last : undefined;
  }

  /** Extends the open block of `type` (or opens one); a `thoughtSignature` signs and closes it, also with no text. */
  #appendText(type: "text" | "reasoning", text: string, block: number | undefined, itemId: string | undefined, thoughtSignature: string | undefined): void {
    if (text === "" && thoughtSignature === undefined) return;
    let open = this.#open(type, block, itemId);
    if (open !== undefined) open.text += text;
    else this.#blocks.push((open = { type, text, block, itemId }));
    if (thoughtSignature !== undefined) open.thoughtSignature = thoughtSignature;
  }

  /**
   * Signs the open reasoning block (also one a Gemini signature closed); a signature with none open is
   * a block whose text the provider omitted.
   */
  #sign(signature: string, block: number | undefined): void {
    const last = this.#blocks.at(-1);
    const open = last?.type === "reasoning" && last.signature === undefined && last.block === block ? last : undefined;
    if (open !== undefined) open.signature = signature;
    else this.#blocks.push({ type: "reasoning", text: "", signature, block, itemId: undefined });
  }

  #appendToolCall(chunk: Extract<StreamChunk, { type: "tool-call-delta" }>): void {
    let call = this.#calls.get(chunk.index);
    if (call === undefined) {
      call = { callId: "", name: "", arguments: "" };
      this.#calls.set(chunk.index, call);
      this.#blocks.push({ type: "tool-call", call });
    }
    if (chunk.callId !== undefined && chunk.callId !== "") {
      if (call.callId !== "" && call.callId !== chunk.callId) {
        throw new LlmError("LLM_MALFORMED_STREAM", `tool call ${chunk.index} changed its id mid-stream`);
      }
      call.callId = chunk.callId;
    }
    if (chunk.name !== undefined && chunk.name !== "") {
      if (call.name !== "" && call.name !== chunk.name) {
        throw new LlmError("LLM_MALFORMED_STREAM", `tool call ${chunk.index} changed its name mid-stream`);
      }
      call.name = chunk.name;
    }
    if (chunk.thoughtSignature !== undefined) {
      if (call.thoughtSignature !== undefined && call.thoughtSignature !== chunk.thoughtSignature) {
        throw new LlmError("LLM_MALFORMED_STREAM", `tool call ${chunk.index} changed its signature mid-stream`);
      }
      call.thoughtSignature = chunk.thoughtSignature;
    }
    if (chunk.itemId !== undefined) {
      if (call.itemId !== undefined && call.itemId !== chunk.itemId) {
        throw new LlmError("LLM_MALFORMED_STREAM", `tool call ${chunk.index} changed its item id mid-stream`);
      }
      call.itemId = chunk.itemId;
    }
    call.arguments += chunk.argumentsDelta;
  }
}
