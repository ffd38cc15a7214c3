import { Agent, createAgentRegistry } from "dsh-agent";
import { CacheSummary, cacheReport } from "dsh-cache-report";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";

export async function main(): Promise<string[]> {
  // A stand-in for DeepSeek, with its automatic prefix cache.
  const sim = await startSimulator({ scenario: { responses: [{ text: "Noted." }, { text: "Noted again." }, { text: "Done." }] } });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    let prompt = "You are a careful assistant. ".repeat(40);
    const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: () => prompt });
    await agent.run("Remember the number 7.");
    await agent.run("And the number 8.");
    prompt = `Today is ${new Date(0).toISOString()}. ${prompt}`; // a plugin that stamps the time into the prompt
    await agent.run("What were the numbers?");

    // From the log alone: each request's cache picture, and the logged event behind each break.
    const summary = new CacheSummary();
    const notes: string[] = [];
    for await (const row of cacheReport(log)) {
      summary.add(row);
      if (row.isBreak) notes.push(`request ${row.turn}.${row.step}: ${row.explanations.join("; ")}`);
    }
    const { requests, breaks, cacheReadShare } = summary.figures();
    console.log(`${requests} requests, ${breaks} break(s), cache-read share ${((cacheReadShare ?? 0) * 100).toFixed(1)}%`);
    for (const note of notes) console.log(note);
    return notes;
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
