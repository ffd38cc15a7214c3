import { compactionEndEvent, compactionForecastEvent, compactionSummaryEvent, stepCosts, stepEndEvent, type CompactionPlan, type PriceOf } from "dsh-agent";
import { foldHeader, type RequestHeaderSnapshot } from "dsh-header";
import { usageCost } from "dsh-llm";
import type { LogEvent } from "dsh-log";

/** One logged compaction forecast set beside what followed it. */
export interface ForecastCheck {
  /** The seq of the `compaction/forecast` event. */
  readonly seq: number;
  readonly choice: CompactionPlan;
  /** Each plan's forecast over all the requests it looked ahead, summary call included. */
  readonly plans: readonly { readonly plan: CompactionPlan; readonly forecastUsd: number; readonly requests: number }[];
  /** How many requests followed (up to the forecast's horizon): what the comparison covers. */
  readonly requests: number;
  /** The chosen plan's forecast over those requests, its summary call included when a compaction followed. */
  readonly forecastUsd: number;
  /** What those requests and any compaction's summary call cost, from their logged usage; `undefined` where a price or a summary call's usage is missing. */
  readonly actualUsd: number | undefined;
  /** Whether a compaction completed in that span. */
  readonly compacted: boolean;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/**
 * Every compaction forecast of a log beside what happened after it: the chosen plan's forecast over
 * the requests that followed (up to its horizon) against their logged cost, and the cost of the
 * summary call when a compaction ran. A pure fold of the log under `prices`.
 */
export function compactionForecasts(events: Iterable<LogEvent>, prices: PriceOf): ForecastCheck[] {
  const all = [...events];
  const out: ForecastCheck[] = [];
  let header: RequestHeaderSnapshot | undefined;
  all.forEach((event, index) => {
    header = foldHeader(header, event);
    if (!compactionForecastEvent.is(event)) return;
    const { plans, choice } = event.data;
    const chosen = plans.find((plan) => plan.plan === choice)!;
    const horizon = chosen.requestsUsd.length;
    // What followed, up to the next forecast and the horizon's last request.
    const within: LogEvent[] = [];
    let counted = 0;
    for (let next = index + 1; next < all.length; next++) {
      const later = all[next]!;
      if (counted >= horizon || compactionForecastEvent.is(later)) break;
      within.push(later);
      if (stepEndEvent.is(later) && later.data.usage !== undefined) counted++;
    }
    const steps = stepCosts(within, prices, header);
    const compacted = within.some((later) => compactionEndEvent.is(later) && later.data.outcome === "completed");
    let summaryUsd: number | undefined = 0;
    for (const later of within) {
      if (!compactionSummaryEvent.is(later)) continue;
      const price = prices(later.data.provider, later.data.model);
      summaryUsd = later.data.usage === undefined || price === undefined || summaryUsd === undefined ? undefined : summaryUsd + usageCost(later.data.usage, price, later.time).totalUsd;
    }
    const stepsUsd = steps.every((step) => step.cost !== undefined) ? sum(steps.map((step) => step.cost!.totalUsd)) : undefined;
    out.push({
      seq: event.seq,
      choice,
      plans: plans.map((plan) => ({ plan: plan.plan, forecastUsd: plan.summaryUsd + sum(plan.requestsUsd), requests: plan.requestsUsd.length })),
      requests: steps.length,
      forecastUsd: (compacted ? chosen.summaryUsd : 0) + sum(chosen.requestsUsd.slice(0, steps.length)),
      actualUsd: stepsUsd === undefined || summaryUsd === undefined ? undefined : stepsUsd + summaryUsd,
      compacted,
    });
  });
  return out;
}
