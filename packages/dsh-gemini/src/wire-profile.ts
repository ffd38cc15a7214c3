import { LlmError, type JsonObject } from "dsh-llm";

/** The wire profile the Gemini adapter declares for every model, as the header logs it. */
export function geminiWireProfile(): JsonObject {
  return { api: "gemini" };
}

/**
 * Checks that a logged wire profile (a header's `wire`) is a Gemini one, so a rebuild serializes as
 * the sending adapter did; anything else is `LLM_INVALID_REQUEST` naming what it found.
 */
export function assertGeminiWire(wire: JsonObject | undefined): void {
  if (wire?.api !== "gemini") {
    throw new LlmError("LLM_INVALID_REQUEST", `the header's wire profile ${JSON.stringify(wire) ?? "(none)"} is not a Gemini profile`, { retryable: false });
  }
}
