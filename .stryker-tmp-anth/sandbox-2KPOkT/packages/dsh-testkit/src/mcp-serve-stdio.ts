// The test MCP server over stdio: `node --import tsx mcp-serve-stdio.ts`.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildServer } from "./mcp-server.js";

await buildServer().connect(new StdioServerTransport());
