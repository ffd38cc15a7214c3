import { DshError } from "dsh-base";
import { LlmError } from "dsh-llm";

/** A failure as it is logged: a stable code, the message and, for HTTP failures, the status. */
export function loggedError(error: unknown): { code: string; message: string; status?: number } {
  if (error instanceof LlmError && error.status !== undefined) return { code: error.code, message: error.message, status: error.status };
  if (error instanceof DshError) return { code: error.code, message: error.message };
  if (error instanceof Error && "code" in error && typeof error.code === "string") return { code: error.code, message: error.message };
  return { code: "UNKNOWN", message: error instanceof Error ? error.message : String(error) };
}
