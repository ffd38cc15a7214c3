export { ResponsesAdapter, type ResponsesAdapterOptions } from "./adapter.js";
export { serializeMessageItems, serializeRequest, serializeRequestBytes, type ResponsesSerializeOptions } from "./serialize.js";
export { responsesWireProfile, responsesOptionsOfWire } from "./wire-profile.js";
export { mapResponsesUsage, parseResponsesStream, responsesDiagnosis } from "./stream.js";
export { MAX_EXPLICIT_BREAKPOINTS, RESPONSES_BREAKPOINT_POLICIES, rollingResponsesPolicy, type ResponsesBreakpointPolicy } from "./breakpoints.js";
export { RESPONSES_API } from "./items.js";
export {
  DEFAULT_RESPONSES_MODEL,
  RESPONSES_MODELS,
  lookupResponsesModel,
  responsesDefaults,
  responsesPrice,
  type ResponsesCatalog,
  type ResponsesModelInfo,
  type RetiredResponsesModel,
} from "./catalog.js";
