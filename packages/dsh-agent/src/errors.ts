import { DshError } from "dsh-base";

/** Stable codes of the errors the agent throws. */
export type AgentErrorCode =
  | "AGENT_BUSY"
  | "AGENT_INVALID_OPTIONS"
  | "AGENT_INVALID_HOOK_RESULT"
  | "AGENT_INVALID_LOG"
  | "AGENT_RECONSTRUCTION"
  | "AGENT_TURN_CONFLICT"
  | "AGENT_INVALID_FORK"
  | "AGENT_COMPACTION_NO_MODEL"
  | "AGENT_COMPACTION_EMPTY_SUMMARY";

/** A misuse of the agent API, a log it cannot run on, or a failed compaction; `code` says which. */
export class AgentError extends DshError<AgentErrorCode> {
  override name = "AgentError";
}

/** Stable codes of tool failures, reported to the model as error results. */
export type ToolErrorCode =
  | "TOOL_UNKNOWN"
  | "TOOL_INVALID_JSON"
  | "TOOL_INVALID_ARGUMENTS"
  | "TOOL_FAILED"
  | "TOOL_ABORTED"
  | "TOOL_NOT_RUN"
  | "TOOL_DENIED"
  | "TOOL_UNCERTAIN";

/** A tool failure. Tools may throw it with their own message; the loop returns it to the model. */
export class ToolError extends DshError<ToolErrorCode> {
  override name = "ToolError";
}
