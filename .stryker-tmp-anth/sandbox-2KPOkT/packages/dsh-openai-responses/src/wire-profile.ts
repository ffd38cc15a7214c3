import { LlmError, type JsonObject } from "dsh-llm";
import type { ResponsesSerializeOptions } from "./serialize.js";

/** The wire profile a Responses adapter declares for a model, as the header logs it: whether it takes explicit breakpoints. */
export function responsesWireProfile(breakpoints: boolean): JsonObject {
  return { api: "responses", breakpoints };
}

/**
 * The serialize options a logged wire profile (a header's `wire`) stands for, so a rebuild uses what
 * the sending adapter used; anything else is `LLM_INVALID_REQUEST` naming what is missing.
 */
export function responsesOptionsOfWire(wire: JsonObject | undefined): Pick<ResponsesSerializeOptions, "breakpoints"> {
  if (wire?.api !== "responses" || typeof wire.breakpoints !== "boolean") {
    throw new LlmError("LLM_INVALID_REQUEST", `the header's wire profile ${JSON.stringify(wire) ?? "(none)"} is not a Responses API profile`, { retryable: false });
  }
  return { breakpoints: wire.breakpoints };
}
