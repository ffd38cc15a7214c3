import { defineTool } from "dsh-agent";
import { DurableTurns } from "dsh-dbos";
import { LlmRuntime } from "dsh-llm";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { z } from "zod";

export async function main(url = process.env.DATABASE_URL): Promise<boolean> {
  if (url === undefined) throw new Error("set DATABASE_URL to a PostgreSQL database, e.g. postgres://user:password@127.0.0.1:5432/dsh");
  // A stand-in for the model: it calls the tool, then answers.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "clock", arguments: {} }] }, { text: "It is noon." }] } });
  const clock = defineTool({ name: "clock", description: "The time", parameters: z.object({}), execute: () => "12:00" });
  // Every worker registers the same agent code; DBOS keeps small receipts, the session log keeps the bytes.
  const turns = DurableTurns.register({
    url,
    agent: () => ({
      runtime: new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] }),
      systemPrompt: "Be brief.",
      tools: [clock],
    }),
  });
  await turns.launch(); // also finishes the turns a crashed run of this worker left
  try {
    const outcome = await turns.run(`demo-${Date.now()}`, "What time is it?", { config: { provider: "deepseek", model: "deepseek-v4-flash" } });
    console.log(outcome.workflowId.replace(/demo-\d+/, "demo"), outcome.reason, outcome.text); // dsh:demo:turn:0 completed It is noon.
    return outcome.reason === "completed";
  } finally {
    await turns.shutdown();
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
