export { startSimulator, type SimulatedExchange, type Simulator, type SimulatorOptions } from "./server.js";
export { loadScenario, type Fault, type Scenario, type ScriptedResponse } from "./scenario.js";
export { CACHE_UNIT, OPENAI_GRANULARITY, PrefixCache, type Granularity } from "./prefix-cache.js";
export { promptTokens } from "./prompt.js";
export { renderMessagesPrompt, type MessagesBody, type RenderedBlock } from "./messages-prompt.js";
export { CACHE_TTL_MS, ExplicitCache, LOOKBACK_BLOCKS, type CacheOutcome } from "./explicit-cache.js";
export { MAX_CACHE_MARKERS, minCacheableTokens } from "./messages-rules.js";
export { responsesPromptTokens, serveResponsesCache, type ResponsesCacheOutcome } from "./responses-serve.js";
export { MAX_RESPONSES_BREAKPOINTS } from "./responses-rules.js";
