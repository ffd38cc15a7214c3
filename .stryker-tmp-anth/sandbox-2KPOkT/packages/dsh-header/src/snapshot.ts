import { EventLog, LogError, defineEvent, type AdmissionRule, type LogEvent } from "dsh-log";
import { z } from "zod";
import { epochHeaderSchema, type EpochHeader } from "./header.js";

/**
 * Why a snapshot was written: `initial` (first loop instance), `resume` (any later instance),
 * `change` (the header changed within an instance), `series` (unchanged, but the step starts a
 * request series or follows a surface replacement).
 */
export const headerReasonSchema = z.enum(["initial", "resume", "change", "series"]);
export type HeaderReason = z.output<typeof headerReasonSchema>;

const strictSnapshotSchema = z.strictObject({
  reason: headerReasonSchema,
  startsSeries: z.literal(true).exactOptional(),
  header: epochHeaderSchema,
});

/** The data of a `request/header` event: always a full snapshot. */
export const requestHeaderDataSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (typeof value !== "object" || value === null || !("startsSeries" in value)) return;
    const { reason, startsSeries } = value as { reason?: unknown; startsSeries?: unknown };
    const message =
      startsSeries === false
        ? "startsSeries: false is never written: omit it"
        : reason !== "change"
          ? "startsSeries is only written on a change snapshot (a series snapshot starts a series by definition)"
          : undefined;
    if (message !== undefined) ctx.addIssue({ code: "custom", path: ["startsSeries"], message });
  })
  .pipe(strictSnapshotSchema);

export interface RequestHeaderSnapshot {
  readonly reason: HeaderReason;
  readonly startsSeries?: true;
  readonly header: EpochHeader;
}

/** The `request/header` event type. */
export const requestHeaderEvent = defineEvent("request/header", requestHeaderDataSchema);

/**
 * The one header fold: the latest snapshot after `event`. It refuses (`LOG_RULE_VIOLATION`) a first
 * snapshot that is not `initial` and any later `initial`. Admission, `foldRequestHeader` and request
 * reconstruction all fold with it.
 */
export function foldHeader(latest: RequestHeaderSnapshot | undefined, event: LogEvent): RequestHeaderSnapshot | undefined {
  if (!requestHeaderEvent.is(event)) return latest;
  const reason = event.data.reason;
  if (latest === undefined && reason !== "initial") {
    throw new LogError("LOG_RULE_VIOLATION", `request/header at seq ${event.seq}: the first snapshot must be initial, not ${reason}`);
  }
  if (latest !== undefined && reason === "initial") {
    throw new LogError("LOG_RULE_VIOLATION", `request/header at seq ${event.seq}: initial is only the first snapshot; later instances write resume`);
  }
  return event.data;
}

/**
 * The latest `request/header` snapshot of a log prefix, or `undefined` if none was written. For a
 * live `EventLog` whose registry has the header rule, it reads the rule's state in O(1).
 */
export function foldRequestHeader(events: Iterable<LogEvent>): RequestHeaderSnapshot | undefined {
  if (events instanceof EventLog && events.registry.rules.includes(headerAdmission as AdmissionRule)) return events.ruleState(headerAdmission);
  let latest: RequestHeaderSnapshot | undefined;
  for (const event of events) latest = foldHeader(latest, event);
  return latest;
}

/** The admission rule of snapshots: {@link foldHeader}, whose state (the latest snapshot) a live reader reads in O(1). */
export const headerAdmission: AdmissionRule<RequestHeaderSnapshot | undefined> = {
  name: "dsh-header/snapshots",
  types: new Set([requestHeaderEvent.type]),
  initial: () => undefined,
  admit: foldHeader,
};
