import { headerEquals, type EpochHeader } from "./header.js";
import type { HeaderReason } from "./snapshot.js";

/** What a step knows when it decides whether it owes a header snapshot. */
export interface HeaderDecision {
  /** The latest snapshot in the log, from any instance. */
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

/** The snapshot a step must write before dispatch, or `undefined` when it carries the latest one. */
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
