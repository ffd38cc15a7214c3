import { Agent, ToolRegistry, createAgentRegistry, reconstructRequests, structuredOutput, type ToolApprover } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter, serializeRequest } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { startHttpServer } from "dsh-testkit/mcp-server";
import { stdioSpec } from "./test-support/stdio-spec.js";
import { connectMcpServers } from "./tool-set.js";

describe("an agent with MCP tools", () => {
  it("calls a stdio and an HTTP server's tools in parallel, one denied, picks up a new list at the next step, answers in a structured form, and rebuilds every request byte for byte", async () => {
    const http = await startHttpServer();
    const sim = await startSimulator({
      scenario: {
        responses: [
          { toolCalls: [{ name: "echo", arguments: { text: "hi" } }, { name: "web_add", arguments: { a: 1, b: 2 } }, { name: "where", arguments: {} }] },
          { toolCalls: [{ name: "web_grow", arguments: {} }] },
          { toolCalls: [{ name: "web_extra", arguments: {} }] },
          { text: '{"sum":3,"echoed":"hi"}' },
        ],
      },
    });
    const tools = await connectMcpServers([stdioSpec({ name: "local" }), { url: http.url, prefix: "web_" }]);
    try {
      const registry = new ToolRegistry();
      tools.attach(registry);
      const log = new EventLog({ registry: createAgentRegistry() });
      const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
      const report = structuredOutput("report", z.object({ sum: z.number(), echoed: z.string() }));
      // The approval hook lets everything through but `where`; the first answer's calls run in parallel.
      const approve: ToolApprover = (request) => (request.toolName === "where" ? { allow: false, by: "policy", reason: "no peeking" } : { allow: true, by: "policy" });
      const config = { provider: "sim", model: "sim-1", responseFormat: report.responseFormat };
      const agent = new Agent({ log, runtime, config, systemPrompt: "Use the tools.", tools: registry, approve });
      const turn = await agent.run("go", { output: report });
      expect(turn.output).toEqual({ value: { sum: 3, echoed: "hi" } });
      const results = log.slice().filter((event) => event.type === "tool/result").map((event) => (event.data as { content: { text?: string }[]; isError: boolean }));
      expect(results.map((result) => [result.content[0]?.text, result.isError])).toEqual([
        ["echo: hi", false],
        ['{"sum":3}', false],
        ["Error [TOOL_DENIED]: not run: denied by policy: no peeking", true],
        ["grown", false],
        ["extra", false],
      ]);
      expect(log.slice().filter((event) => event.type === "tool/approval").map((event) => (event.data as { allowed: boolean }).allowed)).toEqual([true, true, false, true, true]);
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
