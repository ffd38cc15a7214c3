export { whatIf, firstDifference, pairedSteps, type PairedStep, type WhatIfBreak, type WhatIfOptions, type WhatIfReport } from "./what-if.js";
export { describeChange, forkPoint, replayWithChange, type AdapterOf, type WhatIfChange } from "./replay.js";
export type { ModelledRequest, ModelledSession } from "dsh-cache-report";
export { AGENT_MAX_STEPS, recordedStepLimit, withRecordedStepLimit } from "./step-limit.js";
export { WhatIfError, type WhatIfErrorCode } from "./errors.js";
export { compactionForecast, sessionPace, type CompactionForecastOptions } from "./compaction-forecast.js";
export { cheapestPlan, planTotal, pricePlans, type CompactionShape, type PlanLimits, type PlanRates, type PricedPlan, type SessionPace } from "./forecast-plans.js";
