import { imageAttachmentRefSchema } from "dsh-attachments";
import { z } from "zod";
import type { DeepReadonly } from "./freeze.js";

/** Plain text. */
export const textBlockSchema = z.strictObject({ type: z.literal("text"), text: z.string() });
/**
 * Model reasoning ("thinking") text, kept so it can be sent back when a provider requires it. A
 * provider that signs its thinking (Anthropic) adds the `signature` it must receive back unchanged.
 */
export const reasoningBlockSchema = z.strictObject({
  type: z.literal("reasoning"),
  text: z.string(),
  signature: z.string().min(1).exactOptional(),
});
/** Reasoning the provider encrypted (Anthropic's `redacted_thinking`): opaque `data`, sent back as is. */
export const redactedReasoningBlockSchema = z.strictObject({ type: z.literal("redacted-reasoning"), data: z.string().min(1) });
/** An image, by reference to an immutable content-addressed object; bytes never live in the log. */
export const imageBlockSchema = z.strictObject({ type: z.literal("image"), image: imageAttachmentRefSchema });
/** A tool call as the model produced it; `arguments` is the raw JSON text, never re-encoded. */
export const toolCallBlockSchema = z.strictObject({
  type: z.literal("tool-call"),
  callId: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

export type TextBlock = DeepReadonly<z.output<typeof textBlockSchema>>;
export type ReasoningBlock = DeepReadonly<z.output<typeof reasoningBlockSchema>>;
export type RedactedReasoningBlock = DeepReadonly<z.output<typeof redactedReasoningBlockSchema>>;
export type ImageBlock = DeepReadonly<z.output<typeof imageBlockSchema>>;
export type ToolCallBlock = DeepReadonly<z.output<typeof toolCallBlockSchema>>;

/** What a user message (and a tool result) may contain. */
export const userContentSchema = z.discriminatedUnion("type", [textBlockSchema, imageBlockSchema]);
export type UserContent = DeepReadonly<z.output<typeof userContentSchema>>;

/** What an assistant message may contain. */
export const assistantContentSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  reasoningBlockSchema,
  redactedReasoningBlockSchema,
  toolCallBlockSchema,
]);
export type AssistantContent = DeepReadonly<z.output<typeof assistantContentSchema>>;

/** Any content block. */
export type ContentBlock = TextBlock | ReasoningBlock | RedactedReasoningBlock | ImageBlock | ToolCallBlock;
