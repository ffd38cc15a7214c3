import { LlmError, type JsonObject } from "dsh-llm";
import type { Dialect, SerializeOptions } from "./serialize.js";

const DIALECTS: readonly Dialect[] = ["deepseek", "openai"];

/** The wire profile of a Chat Completions adapter speaking `dialect`, as the header logs it. */
export function chatWireProfile(dialect: Dialect): JsonObject {
  return { api: "chat-completions", dialect };
}

/**
 * The serialize options a logged wire profile (a header's `wire`) stands for, so a rebuild uses what
 * the sending adapter used; anything else is `LLM_INVALID_REQUEST` naming what is missing.
 */
export function serializeOptionsOfWire(wire: JsonObject | undefined): Pick<SerializeOptions, "dialect"> {
  const dialect = wire?.dialect;
  if (wire?.api !== "chat-completions" || !DIALECTS.includes(dialect as Dialect)) {
    throw new LlmError("LLM_INVALID_REQUEST", `the header's wire profile ${JSON.stringify(wire) ?? "(none)"} does not name a Chat Completions dialect (${DIALECTS.join(" or ")})`, { retryable: false });
  }
  return { dialect: dialect as Dialect };
}
