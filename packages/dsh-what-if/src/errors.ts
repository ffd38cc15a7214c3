import { DshError } from "dsh-base";

/** Stable codes of the errors `dsh-what-if` throws. */
export type WhatIfErrorCode =
  /** No turn starts at or after the seq the change was asked at: a replay runs whole turns. */
  | "WHAT_IF_NO_TURN"
  /** The change cannot be made: a message to drop that is none (or not a user message or tool result), a compaction share without a context window. */
  | "WHAT_IF_BAD_CHANGE"
  /** The recorded turns ran under step limits no one limit replays (a turn stopped at a limit another ran past). */
  | "WHAT_IF_STEP_LIMITS"
  /** The session does not replay exactly without the change, so a what-if would not compare like with like. */
  | "WHAT_IF_NOT_REPLAYABLE";

/** A what-if that cannot be played; `code` says why. */
export class WhatIfError extends DshError<WhatIfErrorCode> {
  override name = "WhatIfError";
}
