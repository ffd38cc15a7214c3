export { findNonJson, jsonEquals, jsonObjectSchema, jsonValueSchema, type JsonObject, type JsonValue } from "./json.js";
export {
  assistantContentSchema,
  imageBlockSchema,
  reasoningBlockSchema,
  textBlockSchema,
  toolCallBlockSchema,
  userContentSchema,
  type AssistantContent,
  type ContentBlock,
  type ImageBlock,
  type ReasoningBlock,
  type TextBlock,
  type ToolCallBlock,
  type UserContent,
} from "./content.js";
export {
  assistantMessageSchema,
  messageSchema,
  messageSourceSchema,
  systemMessageSchema,
  toolResultMessageSchema,
  userMessageSchema,
  type AssistantMessage,
  type Message,
  type MessageSource,
  type SystemMessage,
  type ToolResultMessage,
  type UserMessage,
} from "./messages.js";
export { toolSchemaSchema, type ToolSchema } from "./tools.js";
export {
  callConfigEquals,
  llmCallConfigSchema,
  reasoningEffortSchema,
  type LlmCallConfig,
  type ReasoningEffort,
} from "./config.js";
export { tokenUsageSchema, type TokenUsage } from "./usage.js";
export { LlmError, isRetryableLlmError, type LlmErrorCode } from "./errors.js";
export { deepFreeze, isDeepFrozen, type DeepReadonly } from "./freeze.js";
export {
  freezeRequest,
  generateOptionsSchema,
  isAgentLoopRequest,
  markAgentLoopRequest,
  type FrozenGenerateOptions,
  type GenerateOptions,
} from "./request.js";
export {
  StreamAssembler,
  finishReasonSchema,
  type FinishReason,
  type GenerateResult,
  type StreamChunk,
} from "./stream.js";
export type { AdapterContext, LlmAdapter, ModelDefaults } from "./adapter.js";
export { LlmRuntime, type LlmRuntimeOptions, type LlmStreamEvent, type LlmStreamListener } from "./runtime.js";
