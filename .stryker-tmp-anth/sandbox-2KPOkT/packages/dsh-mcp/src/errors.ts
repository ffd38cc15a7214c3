import { DshError } from "dsh-base";

/** Stable codes of the errors `dsh-mcp` throws. */
export type McpErrorCode =
  /** A server spec names neither a command nor a URL, or both. */
  | "MCP_INVALID_SERVER"
  /** A server could not be started or reached, or did not answer the handshake or the tool list. */
  | "MCP_CONNECT"
  /** A server offers a tool dsh cannot offer a model (a name outside `[A-Za-z0-9_-]{1,64}`, a schema that is not JSON). */
  | "MCP_INVALID_TOOL"
  /** Two servers, or a server and a built-in tool, offer the same name. */
  | "MCP_NAME_COLLISION";

/** A failure to connect MCP servers or to offer their tools; `code` says which. */
export class McpError extends DshError<McpErrorCode> {
  override name = "McpError";
}
