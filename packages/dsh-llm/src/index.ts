export { MAX_JSON_DEPTH, canonicalJson, findNonJson, frozenJsonCopy, jsonEquals, jsonTextDepth, type JsonObject, type JsonValue } from "./json.js";
export type {
  AssistantContent,
  AssistantTextBlock,
  ContentBlock,
  ImageBlock,
  ProviderItemBlock,
  ReasoningBlock,
  RedactedReasoningBlock,
  TextBlock,
  ToolCallBlock,
  UserContent,
} from "./content.js";
export type {
  AssistantMessage,
  Message,
  MessageSource,
  SystemMessage,
  ToolResultMessage,
  UserMessage,
} from "./messages.js";
export { catalogEntry, type CatalogTables, type RetiredModel } from "./catalog.js";
export { holdsImage, imageBase64, messageImages } from "./images.js";
export type { ToolSchema } from "./tools.js";
export { callConfigEquals, type CacheTtl, type LlmCallConfig, type ReasoningEffort, type ResponseFormat } from "./config.js";
export type { TokenUsage } from "./usage.js";
export { NO_COST, addCosts, cacheReadShare, priceFactorAt, tokenRates, type TokenRates, uncachedInputTokens, usageCost, type ModelPrice, type PeakHours, type UsageCost } from "./price.js";
export type { CacheDiagnosis } from "./diagnosis.js";
export { LlmError, isRetryableLlmError, type LlmErrorCode } from "./errors.js";
export { httpError, retryAfterSeconds } from "./http-errors.js";
export { redactError, redactor, type Redactor } from "./redact.js";
export { readWithIdleTimeout } from "./idle-read.js";
export { SSE_LIMITS, readSseStream, sseObject, type SseFold, type SseLimits } from "./sse.js";
export { addExtensionFields, type OwnFields } from "./extensions.js";
export { endpointUrl, networkReason, postStreaming, streamResponse, type StreamingPost } from "./http-send.js";
export { isUnsent, markUnsent, unsentOnFailure } from "./unsent.js";
export { deepFreeze, freezeParsedJson, isDeepFrozen, type DeepReadonly } from "./freeze.js";
export {
  RequestFreezer,
  freezeRequest,
  requestMemo,
  isAgentLoopRequest,
  markAgentLoopRequest,
  type FrozenGenerateOptions,
  type GenerateOptions,
} from "./request.js";
export { joinedBody, type JoinedBodyParts } from "./joined-body.js";
export { PlacedBytes, mayKeep, type PlacedBytesEntry } from "./kept.js";
export { StreamAssembler, type FinishReason, type GenerateResult, type StreamChunk } from "./stream.js";
export type { AdapterContext, LlmAdapter, ModelDefaults } from "./adapter.js";
export { LlmRuntime, type LlmRuntimeOptions, type LlmStreamEvent, type LlmStreamListener } from "./runtime.js";
