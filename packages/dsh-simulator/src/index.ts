export { startSimulator, type SimulatedExchange, type Simulator, type SimulatorOptions } from "./server.js";
export { loadScenario, scenarioSchema, scriptedResponseSchema, faultSchema, type Fault, type Scenario, type ScriptedResponse } from "./scenario.js";
export { CACHE_UNIT, PrefixCache } from "./prefix-cache.js";
export { promptTokens, renderPrompt, tokenize } from "./prompt.js";
export { exploreResponse } from "./explore.js";
