// A test MCP server over stdio, written on the SDK's low-level `Server`: it lists its tools one per
// page, and offers the tool names `DSH_MCP_TOOLS` gives (comma-separated), valid for dsh or not; a
// name written `name+prop` takes an argument `prop`. With `DSH_MCP_TOOLS_NEXT`, a call to its tool
// `change` switches to that list and announces it (`notifications/tools/list_changed`): before the
// call returns, or, with `DSH_MCP_CHANGE=later`, a moment after. `DSH_MCP_RESULT_BYTES` makes every
// result a text that long; `DSH_MCP_DEEP` nests the first tool's input schema that many levels deep;
// `DSH_MCP_ANNOTATIONS` (JSON, by tool name) gives tools their annotations.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const annotations = JSON.parse(process.env.DSH_MCP_ANNOTATIONS ?? "{}") as Record<string, Record<string, boolean>>;
const toolsOf = (list: string) =>
  list.split(",").map((entry) => {
    const [name, prop] = entry.split("+") as [string, string | undefined];
    const schema = { type: "object" as const, ...(prop === undefined ? {} : { properties: { [prop]: { type: "string" } } }) };
    return { name, description: `Tool ${name}.`, inputSchema: schema, ...(annotations[name] === undefined ? {} : { annotations: annotations[name] }) };
  });

let tools = toolsOf(process.env.DSH_MCP_TOOLS ?? "first,second,third");
const deep = Number(process.env.DSH_MCP_DEEP ?? 0);
if (deep > 0) {
  let schema: Record<string, unknown> = { type: "object" };
  for (let level = 0; level < deep; level++) schema = { type: "object", properties: { inner: schema } };
  tools[0] = { ...tools[0]!, inputSchema: schema as { type: "object" } };
}
const next = process.env.DSH_MCP_TOOLS_NEXT;
const server = new Server({ name: "dsh-paged-server", version: "1.0.0" }, { capabilities: { tools: next === undefined ? {} : { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const at = Number(request.params?.cursor ?? 0);
  return { tools: tools.slice(at, at + 1), ...(at + 1 < tools.length ? { nextCursor: String(at + 1) } : {}) };
});
const change = async () => {
  tools = toolsOf(next!);
  await server.sendToolListChanged();
};
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === "change" && next !== undefined) {
    if (process.env.DSH_MCP_CHANGE === "later") setTimeout(() => void change(), 30);
    else await change();
  }
  const size = Number(process.env.DSH_MCP_RESULT_BYTES ?? 0);
  return { content: [{ type: "text", text: size > 0 ? "x".repeat(size) : `called ${request.params.name}` }] };
});
await server.connect(new StdioServerTransport());
