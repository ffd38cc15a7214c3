import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { whatIf } from "dsh-what-if";
import { z } from "zod";

export async function main(): Promise<number> {
  // A recorded session: three turns with a tool, on a stand-in for Claude.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "read", arguments: {} }] }, { text: "A web log." }, { text: "400 lines." }, { text: "All 200s." }] } });
  const adapters = [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-demo" })];
  const runtime = new LlmRuntime({ adapters });
  const log = new EventLog({ registry: createAgentRegistry() });
  try {
    const read = defineTool({ name: "read", description: "Reads the file", parameters: z.object({}), execute: () => "GET /index.html 200\n".repeat(400) });
    const agent = new Agent({ log, runtime, config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 }, systemPrompt: "You read logs. ".repeat(100), tools: [read] });
    for (const question of ["What is in the file?", "How many lines?", "Any errors?"]) await agent.run(question);
  } finally {
    await sim.close();
  }

  // Before shipping a new prompt: what would it have cost this session from its second turn on? No key, no provider.
  const secondTurn = log.slice().find((event) => event.type === "turn/start" && (event.data as { turn: number }).turn === 1)!.seq;
  const report = await whatIf(log, { kind: "system", text: `Today is ${new Date(0).toDateString()}. You read logs.` }, { at: secondTurn, adapters, prices: runtime.price.bind(runtime) });
  console.log(`${report.change}: ${report.changedRequests} request(s) change, cache reads ${report.delta.cacheReadTokens} tokens, cost ${report.delta.costUsd >= 0 ? "+" : "-"}$${Math.abs(report.delta.costUsd).toFixed(6)}`);
  for (const broke of report.breaks) console.log(`break at ${broke.turn}.${broke.step} (${broke.in}): ${broke.causes.join("; ")}`);
  return report.delta.cacheReadTokens;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
