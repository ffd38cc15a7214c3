import { deepFreeze, type JsonValue, type ReasoningEffort } from "dsh-llm";
import type { Dialect } from "./serialize.js";

/** DeepSeek's thinking efforts (it maps `low` and `medium` to `high` itself): ours, nearest first. */
const DEEPSEEK_EFFORT: Readonly<Record<Exclude<ReasoningEffort, "none">, string>> = deepFreeze({
  minimal: "low",
  low: "low",
  medium: "high",
  high: "high",
  xhigh: "max",
  max: "max",
});

/**
 * The body fields that carry a reasoning effort, in key order. DeepSeek: `none` turns thinking off
 * (`thinking: {"type":"disabled"}`), anything else turns it on and names DeepSeek's effort. OpenAI:
 * `reasoning_effort` as given, with `max` sent as OpenAI's highest, `xhigh`.
 */
export function effortFields(dialect: Dialect, effort: ReasoningEffort): { readonly [key: string]: JsonValue } {
  if (dialect === "openai") return { reasoning_effort: effort === "max" ? "xhigh" : effort };
  if (effort === "none") return { thinking: { type: "disabled" } };
  return { thinking: { type: "enabled" }, reasoning_effort: DEEPSEEK_EFFORT[effort] };
}
