export { ANTHROPIC_VERSION, AnthropicAdapter, type AnthropicAdapterOptions } from "./adapter.js";
export { serializeRequest, serializeRequestBytes, placeBreakpoints, wireBlockJson, type SerializeOptions } from "./serialize.js";
export { extendLayout, layoutRequest, type WireBlock, type WireLayout } from "./blocks.js";
export { messagesWireProfile, serializeOptionsOfWire } from "./wire-profile.js";
export { BREAKPOINT_POLICIES, MAX_BREAKPOINTS, breakpointPolicy, rollingPolicy, systemAndLastUserPolicy, type BreakpointPolicy } from "./breakpoints.js";
export { mapAnthropicUsage, parseMessagesStream, type AnthropicUsage } from "./stream.js";
export {
  CLAUDE_MODELS,
  DEFAULT_CLAUDE_MODEL,
  DEFAULT_MAX_TOKENS,
  claudeDefaults,
  claudePriceOf,
  lookupClaudeModel,
  type ClaudeCatalog,
  type ClaudeModelInfo,
  type RetiredClaudeModel,
  type ThinkingStyle,
} from "./catalog.js";
