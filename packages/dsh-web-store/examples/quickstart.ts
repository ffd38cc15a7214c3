import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { JsonlStore } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { startWebServer, type SessionView } from "dsh-web";
import { storeBackend } from "dsh-web-store";

export async function main(): Promise<string[]> {
  // A store of your sessions (JSONL files here; the SQLite and PostgreSQL stores work the same way).
  const store = new JsonlStore(await mkdtemp(join(tmpdir(), "dsh-sessions-")));
  // A stand-in for DeepSeek, with its automatic prefix cache.
  const sim = await startSimulator({ scenario: { responses: [{ text: "Noted." }, { text: "Noted again." }, { text: "Done." }] } });
  try {
    const { info, log } = await store.create({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    let prompt = "You are a careful assistant. ".repeat(40);
    const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: () => prompt });
    await agent.run("Remember the number 7.");
    await agent.run("And the number 8.");
    prompt = `Today is ${new Date(0).toISOString()}. ${prompt}`; // a plugin that stamps the time into the prompt
    await agent.run("What were the numbers?");
    await log.close();

    // The web app over the store: open server.openUrl in a browser to see each request's cache picture.
    const server = await startWebServer(storeBackend(store));
    try {
      const headers = { "x-dsh-token": server.token };
      const page = (await (await fetch(`${server.url}api/sessions/${info.sessionId}`, { headers })).json()) as SessionView;
      const lines = page.requests.map(({ number, tokens, break: broke }) => `request ${number}: ${tokens.cacheRead} of ${tokens.prompt} prompt tokens read from the cache${broke === undefined ? "" : `; break: ${broke.explanations.join("; ")}`}`);
      for (const line of lines) console.log(line);
      return lines;
    } finally {
      await server.close();
    }
  } finally {
    await sim.close();
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
