import { Agent, createAgentRegistry, defineTool, reconstructRequests } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { wireBody, wireSha256 } from "dsh-wire";
import { z } from "zod";

export async function main(): Promise<boolean> {
  // A stand-in for Claude: it calls the tool, then answers; it keeps every body it receives.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "clock", arguments: {} }] }, { text: "It is noon." }] } });
  try {
    const clock = defineTool({ name: "clock", description: "The time", parameters: z.object({}), execute: () => "12:00" });
    const log = new EventLog({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-demo" })] });
    const agent = new Agent({ log, runtime, config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 }, systemPrompt: "Be brief.", tools: [clock] });
    await agent.run("What time is it?");

    // From the log alone: every request, and the exact bytes it was sent as.
    const bodies = await Promise.all((await reconstructRequests(log)).map((rebuilt) => wireBody(rebuilt)));
    for (const body of bodies) console.log(wireSha256(body).slice(0, 12), body.length);
    return JSON.stringify(bodies) === JSON.stringify(sim.exchanges.map((exchange) => exchange.body));
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
