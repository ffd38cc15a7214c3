/**
 * The zod schemas of the dsh vocabulary, for packages that validate or extend it (`dsh-llm/schemas`).
 * Every schema is strict: unknown keys are rejected.
 */
export { jsonObjectSchema, jsonValueSchema } from "./json.js";
export {
  assistantContentSchema,
  assistantTextBlockSchema,
  imageBlockSchema,
  modelTextSchema,
  providerItemBlockSchema,
  reasoningBlockSchema,
  redactedReasoningBlockSchema,
  textBlockSchema,
  toolCallBlockSchema,
  userContentSchema,
} from "./content.js";
export {
  assistantMessageSchema,
  messageSchema,
  messageSourceSchema,
  systemMessageSchema,
  toolResultMessageSchema,
  userMessageSchema,
} from "./messages.js";
export { toolSchemaSchema } from "./tools.js";
export { cacheTtlSchema, llmCallConfigSchema, reasoningEffortSchema, responseFormatSchema } from "./config.js";
export { tokenUsageSchema } from "./usage.js";
export { cacheDiagnosisSchema } from "./diagnosis.js";
export { generateOptionsSchema } from "./request.js";
export { finishReasonSchema } from "./stream.js";
