export { connectMcpServers, McpTools, type McpToolsOptions } from "./tool-set.js";
export { serverName, type McpServerSpec } from "./connection.js";
export { toolOutcome, type McpCallResult } from "./results.js";
export { McpError, type McpErrorCode } from "./errors.js";
