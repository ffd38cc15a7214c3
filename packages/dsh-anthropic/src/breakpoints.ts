import { LlmError } from "dsh-llm";
import type { WireBlock, WireLayout } from "./blocks.js";

/** The Messages API refuses a request with more cache markers than this. */
export const MAX_BREAKPOINTS = 4;

/** A rule that places cache breakpoints: a pure function of the request's layout. */
export type BreakpointPolicy = (layout: WireLayout) => number[];

/** The last markable block at or before `index` and after `floor`, if any. */
function markableAtOrBefore(layout: WireLayout, index: number, floor = -1): number | undefined {
  for (let i = index; i > floor; i--) if (layout.blocks[i]?.markable === true) return i;
  return undefined;
}

/** The last markable block at or before the last block that `belongs` to (none when no block does), looking from the end. */
function lastMarkable(layout: WireLayout, belongs: (block: WireBlock) => boolean): number | undefined {
  let end = layout.blocks.length - 1;
  while (end >= 0 && !belongs(layout.blocks[end]!)) end--;
  return markableAtOrBefore(layout, end);
}

/** The end of the static prefix: the last tool or system block (they come before every message). */
function staticEnd(layout: WireLayout): number | undefined {
  let end = 0;
  while (end < layout.blocks.length && layout.blocks[end]!.section !== "messages") end++;
  return markableAtOrBefore(layout, end - 1);
}

/** The last block of the wire message `message` (tools and system blocks belong to message -1). */
function messageEnd(layout: WireLayout, message: number): number | undefined {
  return message < 0 ? undefined : lastMarkable(layout, (block) => block.message === message);
}

/**
 * `rolling-v1`, the default: the end of tools + system prompt; the end of the previous request (the
 * message before the last assistant answer), so the prefix that request wrote is read exactly; the
 * current last block, so the next request can read all of this one; then the latest compaction
 * summary, or else, when the newest stretch spans more than 15 blocks, an anchor in its middle, so a
 * later read's 20-block lookback always finds an entry.
 */
export const rollingPolicy: BreakpointPolicy = (layout) => {
  const marks = new Set<number>();
  const add = (index: number | undefined) => {
    if (index !== undefined && marks.size < MAX_BREAKPOINTS) marks.add(index);
  };
  add(staticEnd(layout));
  // The message before the latest answer ended the previous request (none before the first answer).
  add(messageEnd(layout, layout.roles.lastIndexOf("assistant") - 1));
  const last = markableAtOrBefore(layout, layout.blocks.length - 1);
  add(last);
  add(lastMarkable(layout, (block) => block.source === "compaction"));
  if (last !== undefined) {
    const before = Math.max(-1, ...[...marks].filter((mark) => mark < last));
    if (last - before > 15) add(markableAtOrBefore(layout, before + Math.floor((last - before) / 2), before));
  }
  return [...marks].sort((a, b) => a - b);
};

/**
 * `system-and-last-user-v1`, the common policy, for comparison: the end of tools + system prompt, and
 * the last block of the latest user turn (tool results are not user turns).
 */
export const systemAndLastUserPolicy: BreakpointPolicy = (layout) => {
  let turn = -1;
  for (const block of layout.blocks) {
    if (layout.roles[block.message] === "user" && block.value.type !== "tool_result") turn = block.message;
  }
  // The system prompt comes before every message, so the marks are in order.
  return [staticEnd(layout), messageEnd(layout, turn)].filter((mark) => mark !== undefined);
};

/** The breakpoint policies by the name a header logs as `config.cachePolicy`. */
export const BREAKPOINT_POLICIES: Readonly<Record<string, BreakpointPolicy>> = Object.freeze({
  "rolling-v1": rollingPolicy,
  "system-and-last-user-v1": systemAndLastUserPolicy,
  none: () => [],
});

/** The policy named `name`; an unknown name is `LLM_INVALID_REQUEST`, since a rebuild could not place the same markers. */
export function breakpointPolicy(name: string): BreakpointPolicy {
  const policy = Object.hasOwn(BREAKPOINT_POLICIES, name) ? BREAKPOINT_POLICIES[name] : undefined;
  if (policy === undefined) {
    throw new LlmError("LLM_INVALID_REQUEST", `unknown cache policy ${name}: use ${Object.keys(BREAKPOINT_POLICIES).join(", ")}`);
  }
  return policy;
}
