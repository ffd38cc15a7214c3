/** Stable codes of the errors the agent throws. */
export type AgentErrorCode = "AGENT_BUSY" | "AGENT_INVALID_OPTIONS" | "AGENT_INVALID_HOOK_RESULT" | "AGENT_RECONSTRUCTION" | "AGENT_INVALID_FORK";

/** A misuse of the agent API; `code` says which. */
export class AgentError extends Error {
  override readonly name = "AgentError";

  constructor(
    readonly code: AgentErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Stable codes of tool failures, reported to the model as error results. */
export type ToolErrorCode =
  | "TOOL_UNKNOWN"
  | "TOOL_INVALID_JSON"
  | "TOOL_INVALID_ARGUMENTS"
  | "TOOL_FAILED"
  | "TOOL_ABORTED"
  | "TOOL_NOT_RUN";

/** A tool failure. Tools may throw it with their own message; the loop returns it to the model. */
export class ToolError extends Error {
  override readonly name = "ToolError";

  constructor(
    readonly code: ToolErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
