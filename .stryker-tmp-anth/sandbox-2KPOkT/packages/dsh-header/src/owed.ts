import type { JsonObject, LlmCallConfig, ModelDefaults, ToolSchema } from "dsh-llm";
import type { EventInput } from "dsh-log";
import { headerEquals, type EpochHeader } from "./header.js";
import { buildEpochHeader } from "./provenance.js";
import { requestHeaderEvent, type HeaderReason, type RequestHeaderSnapshot } from "./snapshot.js";

/** What a step knows when it decides whether it owes a header snapshot. */
export interface HeaderDecision {
  /** The latest snapshot's header in the log, from any instance. */
  readonly latest: EpochHeader | undefined;
  /** Whether this loop instance has already written a snapshot. */
  readonly writtenByThisInstance: boolean;
  /** The header this step's request will carry. */
  readonly next: EpochHeader;
  /** The step declared `startsRequestSeries: true`. */
  readonly startsRequestSeries: boolean;
  /** A surface replace happened since the previous loop request. */
  readonly followsReplace: boolean;
}

/** The reason (and `startsSeries`) of the snapshot a step owes, or `undefined` when it carries the latest one. */
export function owedHeaderSnapshot(
  decision: HeaderDecision,
): { readonly reason: HeaderReason; readonly startsSeries?: true } | undefined {
  const { latest, writtenByThisInstance, next } = decision;
  if (!writtenByThisInstance) return { reason: latest === undefined ? "initial" : "resume" };
  const startsSeries = decision.startsRequestSeries || decision.followsReplace;
  if (latest === undefined || !headerEquals(latest, next)) {
    return startsSeries ? { reason: "change", startsSeries: true } : { reason: "change" };
  }
  return startsSeries ? { reason: "series" } : undefined;
}

/** Everything a loop step knows about its request's header, before deciding what to log. */
export interface HeaderStep {
  /** The latest snapshot in the log (what `foldRequestHeader` selects), from any instance. */
  readonly latest: RequestHeaderSnapshot | undefined;
  /** Whether this loop instance has already written a snapshot. */
  readonly writtenByThisInstance: boolean;
  /** The caller's selection for this request. */
  readonly selection: LlmCallConfig;
  /** What the adapter applies for the selected model when the caller does not choose. */
  readonly modelDefaults: ModelDefaults;
  /** The adapter's wire profile for the selected model, when it declares one. */
  readonly wire?: JsonObject | undefined;
  /** The tools offered, in order (none: an empty list). */
  readonly tools: readonly ToolSchema[];
  /** The step declared `startsRequestSeries: true`. */
  readonly startsRequestSeries: boolean;
  /** A surface replace happened since this instance's previous request. */
  readonly followsReplace: boolean;
}

/**
 * The `request/header` event a step owes before it dispatches, ready to append, or `undefined` when
 * the request carries the latest snapshot. The header is built with adapter-default provenance.
 */
export function owedHeaderEvent(step: HeaderStep): EventInput<"request/header", RequestHeaderSnapshot> | undefined {
  const next = buildEpochHeader(step.selection, step.modelDefaults, step.tools, step.wire);
  const owed = owedHeaderSnapshot({
    latest: step.latest?.header,
    writtenByThisInstance: step.writtenByThisInstance,
    next,
    startsRequestSeries: step.startsRequestSeries,
    followsReplace: step.followsReplace,
  });
  if (owed === undefined) return undefined;
  const snapshot: RequestHeaderSnapshot = { ...owed, header: next };
  return { type: requestHeaderEvent.type, data: snapshot };
}
