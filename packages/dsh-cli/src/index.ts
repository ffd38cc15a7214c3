export { main, USAGE } from "./main.js";
export { EXIT, CliError, describeFailure } from "./cli-error.js";
export type { CliIo } from "./io.js";
export { cacheReport, explainBetween, type CacheRow } from "./cache-report.js";
export { workspaceTools } from "./workspace-tools.js";
export { PROVIDERS, dialectOf, providerProfile, type ProviderProfile } from "./providers.js";
