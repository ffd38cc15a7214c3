import { deepFreeze, type LlmCallConfig } from "dsh-llm";
import { llmCallConfigSchema } from "dsh-llm/schemas";
import { z } from "zod";
import { AgentError, type AgentErrorCode } from "./errors.js";

/** Validates a call config from options or a hook and returns a private deep-frozen copy; throws `code` otherwise. */
export function frozenConfig(value: unknown, what: string, code: AgentErrorCode): LlmCallConfig {
  const parsed = llmCallConfigSchema.safeParse(value);
  if (!parsed.success) throw new AgentError(code, `${what}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; ")}`);
  return deepFreeze(structuredClone(parsed.data));
}
