// A test MCP server over stdio, written on the SDK's low-level `Server`: it lists its tools one per
// page, and offers the tool names `DSH_MCP_TOOLS` gives (comma-separated), valid for dsh or not.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const names = (process.env.DSH_MCP_TOOLS ?? "first,second,third").split(",");
const tools = names.map((name) => ({ name, description: `Tool ${name}.`, inputSchema: { type: "object" as const } }));
const server = new Server({ name: "dsh-paged-server", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const at = Number(request.params?.cursor ?? 0);
  return { tools: tools.slice(at, at + 1), ...(at + 1 < tools.length ? { nextCursor: String(at + 1) } : {}) };
});
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: "text", text: `called ${request.params.name}` }] }));
await server.connect(new StdioServerTransport());
