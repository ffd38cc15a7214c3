import { z } from "zod";
import type { DeepReadonly } from "./freeze.js";
import { assistantContentSchema, modelTextSchema, userContentSchema } from "./content.js";

/**
 * Where a message came from: `system-prompt`, `user`, `inject`, `tool-context`, `pre-step`,
 * `model`, `tool`, `compaction`, or any other non-empty name a harness chooses.
 */
export const messageSourceSchema = z.string().min(1);
export type MessageSource = DeepReadonly<z.output<typeof messageSourceSchema>>;

/** The rendered system prompt; content is kept exactly, whitespace included. */
export const systemMessageSchema = z.strictObject({
  role: z.literal("system"),
  content: modelTextSchema,
  source: messageSourceSchema,
});

/** A user turn, or context that entered a step through the inbox or `agent/pre-step`. */
export const userMessageSchema = z.strictObject({
  role: z.literal("user"),
  content: z.array(userContentSchema).min(1),
  source: messageSourceSchema,
});

/** What the model answered in one request. */
export const assistantMessageSchema = z.strictObject({
  role: z.literal("assistant"),
  content: z.array(assistantContentSchema),
  source: messageSourceSchema,
});

/** The result of one tool call, paired with the call by `callId`. */
export const toolResultMessageSchema = z.strictObject({
  role: z.literal("tool"),
  callId: z.string().min(1),
  toolName: z.string().min(1),
  content: z.array(userContentSchema),
  isError: z.boolean(),
  source: messageSourceSchema,
});

/** Any message of a request. */
export const messageSchema = z.discriminatedUnion("role", [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolResultMessageSchema,
]);

export type SystemMessage = DeepReadonly<z.output<typeof systemMessageSchema>>;
export type UserMessage = DeepReadonly<z.output<typeof userMessageSchema>>;
export type AssistantMessage = DeepReadonly<z.output<typeof assistantMessageSchema>>;
export type ToolResultMessage = DeepReadonly<z.output<typeof toolResultMessageSchema>>;
export type Message = DeepReadonly<z.output<typeof messageSchema>>;
