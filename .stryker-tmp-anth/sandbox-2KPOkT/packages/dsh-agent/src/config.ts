import { describeIssues } from "dsh-base";
import { deepFreeze, type LlmCallConfig } from "dsh-llm";
import { llmCallConfigSchema } from "dsh-llm/schemas";
import { AgentError, type AgentErrorCode } from "./errors.js";

/** Validates a call config from options or a hook and returns a private deep-frozen copy; throws `code` otherwise. */
export function frozenConfig(value: unknown, what: string, code: AgentErrorCode): LlmCallConfig {
  const parsed = llmCallConfigSchema.safeParse(value);
  if (!parsed.success) throw new AgentError(code, `${what}: ${describeIssues(parsed.error.issues)}`);
  return deepFreeze(structuredClone(parsed.data));
}
