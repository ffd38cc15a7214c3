import { imageAttachmentRefSchema } from "dsh-attachments";
import { loneSurrogateIndex } from "dsh-base";
import { z } from "zod";
import type { DeepReadonly } from "./freeze.js";
import { MAX_JSON_DEPTH, jsonObjectSchema, jsonTextDepth } from "./json.js";

/**
 * Text a model sees: any string that is well-formed Unicode. Half of a character (a lone surrogate)
 * is refused where it enters, since every provider refuses a request that carries one, for good.
 */
export const modelTextSchema = z.string().check((context) => {
  const at = loneSurrogateIndex(context.value);
  if (at >= 0) {
    context.issues.push({ code: "custom", input: context.value, message: `half of a character (a lone surrogate) at index ${at}: text must be well-formed Unicode` });
  }
});

/** Plain text. */
export const textBlockSchema = z.strictObject({ type: z.literal("text"), text: modelTextSchema });
/**
 * The provider's id of the output item an answer's block came from (OpenAI's Responses API numbers
 * its messages and function calls), sent back with the block so the next request repeats the item.
 */
const itemIdSchema = z.string().min(1).exactOptional();
/**
 * Gemini's `thoughtSignature`: the model's encrypted reasoning state attached to the part that carries
 * the block, sent back unchanged in the same part. Only the Gemini adapter reads it; every other
 * adapter leaves it out, so a signature never reaches a provider that did not issue it.
 */
const thoughtSignatureSchema = z.string().min(1).exactOptional();
/** Answer text, with the id of the provider's output item it came from and Gemini's signature, if the provider gives them. */
export const assistantTextBlockSchema = textBlockSchema.extend({ itemId: itemIdSchema, thoughtSignature: thoughtSignatureSchema });
/**
 * Model reasoning ("thinking") text, kept so it can be sent back when a provider requires it. A
 * provider that signs its thinking adds what it must receive back unchanged: Anthropic's `signature`,
 * Gemini's `thoughtSignature`.
 */
export const reasoningBlockSchema = z.strictObject({
  type: z.literal("reasoning"),
  text: modelTextSchema,
  signature: z.string().min(1).exactOptional(),
  thoughtSignature: thoughtSignatureSchema,
});
/** Reasoning the provider encrypted (Anthropic's `redacted_thinking`): opaque `data`, sent back as is. */
export const redactedReasoningBlockSchema = z.strictObject({ type: z.literal("redacted-reasoning"), data: z.string().min(1) });
/** An image, by reference to an immutable content-addressed object; bytes never live in the log. */
export const imageBlockSchema = z.strictObject({ type: z.literal("image"), image: imageAttachmentRefSchema });
/**
 * A tool call's raw argument text: model text that nests no deeper than {@link MAX_JSON_DEPTH}, the
 * one depth rule for everything dsh logs and sends, whatever the dialect (an answer deeper than that
 * is refused where it arrives, as malformed, and never logged).
 */
const argumentsSchema = modelTextSchema.check((context) => {
  // A text no longer than the limit cannot open more brackets than the limit: only a longer one is scanned.
  if (context.value.length > MAX_JSON_DEPTH && jsonTextDepth(context.value) > MAX_JSON_DEPTH) {
    context.issues.push({ code: "custom", input: context.value, message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
  }
});

/** A tool call as the model produced it; `arguments` is the raw JSON text, never re-encoded. */
export const toolCallBlockSchema = z.strictObject({
  type: z.literal("tool-call"),
  callId: z.string().min(1),
  name: z.string().min(1),
  arguments: argumentsSchema,
  itemId: itemIdSchema,
  thoughtSignature: thoughtSignatureSchema,
});
/**
 * An output item a provider needs back exactly and no other block expresses (OpenAI's reasoning item,
 * with its encrypted content), as the provider sent it. The adapter of the named `api` sends it back
 * verbatim; every other adapter leaves it out, as it leaves out another provider's unsigned reasoning.
 */
export const providerItemBlockSchema = z.strictObject({ type: z.literal("provider-item"), api: z.string().min(1), item: jsonObjectSchema });

export type TextBlock = DeepReadonly<z.output<typeof textBlockSchema>>;
export type ReasoningBlock = DeepReadonly<z.output<typeof reasoningBlockSchema>>;
export type RedactedReasoningBlock = DeepReadonly<z.output<typeof redactedReasoningBlockSchema>>;
export type ImageBlock = DeepReadonly<z.output<typeof imageBlockSchema>>;
export type ToolCallBlock = DeepReadonly<z.output<typeof toolCallBlockSchema>>;
export type AssistantTextBlock = DeepReadonly<z.output<typeof assistantTextBlockSchema>>;
export type ProviderItemBlock = DeepReadonly<z.output<typeof providerItemBlockSchema>>;

/** What a user message (and a tool result) may contain. */
export const userContentSchema = z.discriminatedUnion("type", [textBlockSchema, imageBlockSchema]);
export type UserContent = DeepReadonly<z.output<typeof userContentSchema>>;

/** What an assistant message may contain. */
export const assistantContentSchema = z.discriminatedUnion("type", [
  assistantTextBlockSchema,
  reasoningBlockSchema,
  redactedReasoningBlockSchema,
  toolCallBlockSchema,
  providerItemBlockSchema,
]);
export type AssistantContent = DeepReadonly<z.output<typeof assistantContentSchema>>;

/** Any content block. */
export type ContentBlock = TextBlock | AssistantTextBlock | ReasoningBlock | RedactedReasoningBlock | ImageBlock | ToolCallBlock | ProviderItemBlock;
