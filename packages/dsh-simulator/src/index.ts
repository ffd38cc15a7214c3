export { startSimulator, type SimulatedExchange, type Simulator, type SimulatorOptions } from "./server.js";
export { loadScenario, type Fault, type Scenario, type ScriptedResponse } from "./scenario.js";
export { CACHE_UNIT } from "./prefix-cache.js";
export { promptTokens } from "./prompt.js";
