export { cacheReport, type CacheReportOptions } from "./report.js";
export { cacheRows, type CacheRow, type MeasuredPrompt } from "./cache-report.js";
export { CacheSummary, type CacheFigures } from "./summary.js";
export { describeVerdict, type ProviderVerdict } from "./provider-verdict.js";
export { measuredPrompts } from "./measured-prompts.js";
export { measured, tokenizedRequests, type TokenizedRequest } from "./tokenized.js";
export type { MessagesPrompt } from "./messages-misses.js";
export { modelSession, type ModelledRequest, type ModelledSession } from "./model-session.js";
export { divergence, type Divergence } from "./divergence.js";
