import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { costReport } from "dsh-cost-report";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { z } from "zod";

export async function main(): Promise<boolean> {
  // A stand-in for Claude that reads a long file with a tool, then answers twice.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "read", arguments: {} }] }, { text: "It is a log." }, { text: "Forty lines." }] } });
  try {
    const read = defineTool({ name: "read", description: "Reads the file", parameters: z.object({}), execute: () => "GET /index.html 200\n".repeat(400) });
    const log = new EventLog({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-demo" })] });
    const agent = new Agent({ log, runtime, config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 }, systemPrompt: "You read logs. ".repeat(100), tools: [read] });
    await agent.run("What is in the file?");
    await agent.run("How many lines?");

    // From the log alone: what the session cost, and which event cost what (the adapter's price table).
    const report = costReport(log, { prices: runtime.price.bind(runtime), byEvent: true });
    for (const row of report.events ?? []) {
      const written = row.cacheWrite5mTokens + row.cacheWrite1hTokens;
      console.log(`seq ${row.seq} ${row.label}: ${row.requests} request(s), ${written} written, ${row.cacheReadTokens} read, ${row.uncachedTokens} uncached, ${row.outputTokens} output, $${row.cost.totalUsd.toFixed(6)}`);
    }
    const byEvent = (report.events ?? []).reduce((sum, row) => sum + row.cost.totalUsd, 0);
    console.log(`session: ${report.steps.length} steps, $${report.total.cost.totalUsd.toFixed(6)}`);
    return Math.abs(byEvent - report.total.cost.totalUsd) < 1e-9;
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
