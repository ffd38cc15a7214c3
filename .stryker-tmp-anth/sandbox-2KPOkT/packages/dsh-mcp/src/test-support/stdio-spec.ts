import { stdioServerCommand } from "dsh-testkit/mcp-server";
import type { McpServerSpec } from "../connection.js";

/** The spec that starts the test MCP server over stdio, as a child process. */
export function stdioSpec(extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return { ...stdioServerCommand(), ...extra };
}
