import { DshError } from "dsh-base";

/** Stable codes of the errors dsh-dbos throws. */
export type DurableErrorCode =
  /** Options that cannot work: a second registration in one process, a session without a model, a call before `launch`. */
  | "DURABLE_INVALID_OPTIONS"
  /** A turn's unit ran outside a DBOS workflow, where no completion record can be kept. */
  | "DURABLE_OUTSIDE_WORKFLOW"
  /** The turn asked for is already pending as a workflow a crashed process left: recover it first. */
  | "DURABLE_TURN_PENDING"
  /** The turn's workflow ended in an error, or was cancelled. */
  | "DURABLE_TURN_FAILED"
  /** Another worker's launch on the same database held the launch lock for too long. */
  | "DURABLE_LAUNCH_BLOCKED";

/** A durable turn that cannot start, run or finish; `code` says why. */
export class DurableError extends DshError<DurableErrorCode> {
  override name = "DurableError";
}
