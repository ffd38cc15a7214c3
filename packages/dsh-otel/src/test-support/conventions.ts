// The GenAI semantic conventions' message-content shapes (the input messages, output messages and
// system instructions JSON schemas: required fields and types), written as zod schemas for the tests.
import { z } from "zod";

const modality = z.string().min(1);
const part = z.union([
  z.looseObject({ type: z.literal("text"), content: z.string() }),
  z.looseObject({ type: z.literal("tool_call"), id: z.string().nullable().optional(), name: z.string(), arguments: z.unknown().optional() }),
  z.looseObject({ type: z.literal("tool_call_response"), id: z.string().nullable().optional(), response: z.unknown() }),
  z.looseObject({ type: z.literal("uri"), modality, mime_type: z.string().nullable().optional(), uri: z.string() }),
  z.looseObject({ type: z.literal("blob"), modality, mime_type: z.string().nullable().optional(), content: z.string() }),
  z.looseObject({ type: z.literal("reasoning"), content: z.string() }),
  // The generic part: any other type, by name.
  z.looseObject({ type: z.string().refine((type) => !["text", "tool_call", "tool_call_response", "uri", "blob", "reasoning", "file"].includes(type)) }),
]);
const role = z.string().min(1);
const chatMessage = z.looseObject({ role, parts: z.array(part), name: z.string().nullable().optional() });

export const inputMessagesSchema = z.array(chatMessage);
export const outputMessagesSchema = z.array(chatMessage.extend({ finish_reason: z.string() }));
export const systemInstructionsSchema = z.array(part);
export const toolDefinitionsSchema = z.array(z.looseObject({ type: z.string(), name: z.string(), description: z.string().optional(), parameters: z.unknown().optional() }));
