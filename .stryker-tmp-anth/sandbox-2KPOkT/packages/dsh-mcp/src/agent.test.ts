import { Agent, ToolRegistry, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter, serializeRequest } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { startHttpServer } from "dsh-testkit/mcp-server";
import { stdioSpec } from "./test-support/stdio-spec.js";
import { connectMcpServers } from "./tool-set.js";

describe("an agent with MCP tools", () => {
  it("calls a stdio and an HTTP server's tools, logs their lists exactly, picks up a new list at the next step, and rebuilds every request byte for byte", async () => {
    const http = await startHttpServer();
    const sim = await startSimulator({
      scenario: {
        responses: [
          { toolCalls: [{ name: "echo", arguments: { text: "hi" } }, { name: "web_add", arguments: { a: 1, b: 2 } }] },
          { toolCalls: [{ name: "web_grow", arguments: {} }] },
          { toolCalls: [{ name: "web_extra", arguments: {} }] },
          { text: "Done." },
        ],
      },
    });
    const tools = await connectMcpServers([stdioSpec({ name: "local" }), { url: http.url, prefix: "web_" }]);
    try {
      const registry = new ToolRegistry();
      tools.attach(registry);
      const log = new EventLog({ registry: createAgentRegistry() });
      const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
      const agent = new Agent({ log, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Use the tools.", tools: registry });
      const turn = await agent.run("go");
      expect(turn.text).toBe("Done.");
      const results = log.slice().filter((event) => event.type === "tool/result").map((event) => (event.data as { content: { text?: string }[]; isError: boolean }));
      expect(results.map((result) => [result.content[0]?.text, result.isError])).toEqual([
        ["echo: hi", false],
        ['{"sum":3}', false],
        ["grown", false],
        ["extra", false],
      ]);
      // The third request offers the tool the HTTP server announced after the second: a logged change, not a mid-request switch.
      const headers = log.slice().filter((event) => event.type === "request/header").map((event) => event.data as { reason: string; header: { tools: { name: string; description: string }[] } });
      expect(headers.map((header) => header.reason)).toEqual(["initial", "change"]);
      expect(headers[1]!.header.tools.at(-1)).toMatchObject({ name: "web_extra", description: "A tool that came later." });
      const rebuilt = await reconstructRequests(log);
      const bodies = await Promise.all(rebuilt.map(({ request }) => serializeRequest(request, { dialect: "deepseek" })));
      expect(bodies).toEqual(sim.exchanges.map((exchange) => exchange.body));
    } finally {
      await tools.close();
      await sim.close();
      await http.close();
    }
  });
});
