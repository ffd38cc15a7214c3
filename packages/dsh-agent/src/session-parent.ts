import { LogError, defineEvent, type AdmissionRule } from "dsh-log";
import { z } from "zod";

/**
 * A child session's first event: the parent session, the seq of the parent's answer that called the
 * subagent, and that call. Not model-visible.
 */
export const sessionParentEvent = defineEvent(
  "session/parent",
  z.strictObject({ sessionId: z.string().min(1), answerSeq: z.number().int().nonnegative(), callId: z.string().min(1), toolName: z.string().min(1) }),
);

/** `session/parent` is a child session's first event, or none at all. */
export const sessionParentRule: AdmissionRule<null> = {
  name: "session-parent",
  types: new Set([sessionParentEvent.type]),
  initial: () => null,
  admit(state, event) {
    if (event.seq !== 0) throw new LogError("LOG_RULE_VIOLATION", `session/parent at seq ${event.seq}: a child session names its parent in its first event only`);
    return state;
  },
};

/** What a subagent session's first event says of its parent: the parent session, its answer's seq, and the call. */
export type SessionParent = z.output<typeof sessionParentEvent.schema>;
