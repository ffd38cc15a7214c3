import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Agent, ToolRegistry, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { connectMcpServers } from "dsh-mcp";
import { ChatCompletionsAdapter, serializeRequest } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { z } from "zod";

export async function main(): Promise<boolean> {
  // Any MCP server will do; this one runs here, over Streamable HTTP, with one tool.
  const http = createServer(async (request, response) => {
    const server = new McpServer({ name: "clock", version: "1.0.0" });
    server.registerTool("clock", { description: "The time in a time zone.", inputSchema: { zone: z.string() } }, async ({ zone }) => ({ content: [{ type: "text", text: `It is noon in ${zone}.` }] }));
    const transport = new StreamableHTTPServerTransport(); // stateless: a fresh server per request
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  // A stand-in for the model: it calls the tool, then answers.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "clock", arguments: { zone: "Asia/Tokyo" } }] }, { text: "Noon in Tokyo." }] } });
  // A stdio server is { command: "npx", args: ["-y", "some-mcp-server"] } instead of { url }.
  const mcp = await connectMcpServers([{ url }]);
  try {
    const tools = new ToolRegistry();
    mcp.attach(tools);
    const log = new EventLog({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: "Use the clock.", tools });
    console.log((await agent.run("What time is it in Tokyo?")).text); // Noon in Tokyo.

    // The server's tool is in the log as it offered it, so every request rebuilds byte for byte.
    const rebuilt = await reconstructRequests(log);
    const bodies = await Promise.all(rebuilt.map(({ request }) => serializeRequest(request, { dialect: "deepseek" })));
    return bodies.every((body, i) => body === sim.exchanges[i]?.body);
  } finally {
    await mcp.close();
    await sim.close();
    http.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
