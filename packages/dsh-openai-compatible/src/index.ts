export { ChatCompletionsAdapter, type ChatCompletionsAdapterOptions } from "./adapter.js";
export { serializeMessage, serializeRequest, serializeRequestBytes, type Dialect, type SerializeOptions } from "./serialize.js";
export { chatWireProfile, serializeOptionsOfWire } from "./wire-profile.js";
export { mapUsage, parseChatCompletionStream } from "./stream.js";
export { httpError } from "dsh-llm";
export { DEEPSEEK_MODELS, OPENAI_MODELS, catalogDefaults, catalogPrice, lookupModel, type ModelCatalog, type ModelInfo, type RetiredModel } from "./catalog.js";
