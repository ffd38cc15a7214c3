export { GeminiAdapter, type GeminiAdapterOptions } from "./adapter.js";
export { serializeRequest, serializeRequestBytes, type GeminiSerializeOptions } from "./serialize.js";
export { assertGeminiWire, geminiWireProfile } from "./wire-profile.js";
export { mapGeminiUsage, parseGeminiStream, type GeminiUsage } from "./stream.js";
export { GEMINI_API, GeminiContents, type WireContent } from "./parts.js";
export {
  DEFAULT_GEMINI_MODEL,
  GEMINI_MODELS,
  geminiDefaults,
  geminiPrice,
  lookupGeminiModel,
  thinkingLevelOf,
  type GeminiCatalog,
  type GeminiModelInfo,
  type ThinkingLevel,
} from "./catalog.js";
