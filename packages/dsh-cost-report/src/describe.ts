import type { ForecastCheck } from "./forecasts.js";

/** Dollars as people read them: cents from a dollar up, up to six decimals below it; `no price` for `undefined`. */
export function formatUsd(value: number | undefined): string {
  if (value === undefined) return "no price";
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(6).replace(/0+$/, "").replace(/\.$/, ".0")}`;
}

/** A compaction forecast beside what happened, in one line: the choice, each plan's forecast, and the forecast against the actual cost of the requests that followed. */
export function describeForecast(check: ForecastCheck): string {
  const plans = check.plans.map((plan) => `${plan.plan} ${formatUsd(plan.forecastUsd)}`).join(", ");
  const horizon = check.plans[0]?.requests ?? 0;
  const followed = check.requests === 0 ? "no request followed yet" : `over the ${check.requests} request(s) that followed${check.compacted ? ", compaction included" : ""}: forecast ${formatUsd(check.forecastUsd)}, actual ${formatUsd(check.actualUsd)}`;
  return `compaction forecast at seq ${check.seq}: chose ${check.choice} (${plans} over ${horizon} request(s)); ${followed}`;
}
