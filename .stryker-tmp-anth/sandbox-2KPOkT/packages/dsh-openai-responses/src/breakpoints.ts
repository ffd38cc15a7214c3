import { LlmError, type Message } from "dsh-llm";
import { markable } from "./items.js";

/**
 * Explicit breakpoints one request may place while the implicit one is on: OpenAI writes up to four
 * per request, one of them its own.
 */
export const MAX_EXPLICIT_BREAKPOINTS = 3;

/** A rule that chooses which messages end with a cache breakpoint: a pure function of the messages. */
export type ResponsesBreakpointPolicy = (messages: readonly Message[]) => number[];

/** The last message at or before `index` that can carry a breakpoint. */
function markableAtOrBefore(messages: readonly Message[], index: number): number | undefined {
  for (let i = index; i >= 0; i--) if (markable(messages[i]!)) return i;
  return undefined;
}

/**
 * `rolling-v1`, the default on models that take breakpoints: the system prompt; the end of the
 * previous request (the last message before the latest answer), so what that request wrote is read
 * at its exact end; and the last message, so the next request can read all of this one. Three at
 * most ({@link MAX_EXPLICIT_BREAKPOINTS}), in ascending order by construction.
 */
export const rollingResponsesPolicy: ResponsesBreakpointPolicy = (messages) => {
  const marks = new Set<number>();
  if (messages[0]?.role === "system") marks.add(0);
  const lastAnswer = messages.map((message) => message.role).lastIndexOf("assistant");
  for (const index of [markableAtOrBefore(messages, lastAnswer - 1), markableAtOrBefore(messages, messages.length - 1)]) {
    if (index !== undefined) marks.add(index);
  }
  return [...marks];
};

/** The named policies `config.cachePolicy` may choose; `none` places no explicit breakpoint. */
export const RESPONSES_BREAKPOINT_POLICIES: Readonly<Record<string, ResponsesBreakpointPolicy>> = Object.freeze({
  "rolling-v1": rollingResponsesPolicy,
  none: () => [],
});

/**
 * The messages to mark for `policy` (none when no policy is named). A named policy on a model that
 * takes no breakpoints, or a name no policy has, is `LLM_INVALID_REQUEST` before anything is sent.
 */
export function breakpointsFor(messages: readonly Message[], policy: string | undefined, breakpoints: boolean, model: string): ReadonlySet<number> {
  if (policy === undefined) return new Set();
  if (!Object.hasOwn(RESPONSES_BREAKPOINT_POLICIES, policy)) {
    throw new LlmError("LLM_INVALID_REQUEST", `unknown cache policy ${policy}: choose ${Object.keys(RESPONSES_BREAKPOINT_POLICIES).join(" or ")}`, { retryable: false });
  }
  if (!breakpoints && policy !== "none") {
    throw new LlmError("LLM_INVALID_REQUEST", `${model} takes no explicit cache breakpoints (GPT-5.6 and later do): leave config.cachePolicy unset`, { retryable: false });
  }
  return new Set(RESPONSES_BREAKPOINT_POLICIES[policy]!(messages));
}
