export { costReport, type CostReport, type CostReportOptions, type TurnCost } from "./report.js";
export { eventCosts, type EventCost } from "./event-costs.js";
export { compactionForecasts, type ForecastCheck } from "./forecasts.js";
export { catalogPrices, describePrice, priceTable } from "./prices.js";
export { CostReportError, type CostReportErrorCode } from "./errors.js";
export { treeCost, type SessionCost, type TreeCost } from "./tree.js";
export { describeForecast, formatUsd } from "./describe.js";
