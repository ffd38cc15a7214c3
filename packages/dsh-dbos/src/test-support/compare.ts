import type { EventLog, LogEvent } from "dsh-log";

/** The events' types and data, without their times: what two runs of the same turn must agree on. */
export function timeless(log: EventLog | readonly LogEvent[]): { type: string; data: unknown }[] {
  const events = Array.isArray(log) ? (log as readonly LogEvent[]) : (log as EventLog).slice();
  return events.map(({ type, data }) => ({ type, data }));
}

/**
 * The same, without what the provider reported about each call (usage, response id, cache verdict):
 * a request sent again after a crash reads the prefix cache, so its usage differs, and must.
 */
export function withoutReports(log: EventLog | readonly LogEvent[]): { type: string; data: unknown }[] {
  return timeless(log).map(({ type, data }) => {
    if (type !== "step/end") return { type, data };
    const { usage: _usage, responseId: _id, cacheDiagnosis: _diagnosis, ...rest } = data as Record<string, unknown>;
    return { type, data: rest };
  });
}
