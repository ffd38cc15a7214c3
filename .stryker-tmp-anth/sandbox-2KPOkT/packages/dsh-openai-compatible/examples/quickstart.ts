import { LlmRuntime, freezeRequest } from "dsh-llm";
import { ChatCompletionsAdapter, DEEPSEEK_MODELS, serializeRequest } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";

export async function main(): Promise<boolean> {
  // A loopback stand-in for DeepSeek; for the real API use baseUrl "https://api.deepseek.com" and a key.
  const sim = await startSimulator({ scenario: { responses: [{ text: "Hello from the simulator." }] } });
  try {
    const adapter = new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url, apiKey: process.env.DEEPSEEK_API_KEY, catalog: DEEPSEEK_MODELS });
    const runtime = new LlmRuntime({ adapters: [adapter] });
    const request = freezeRequest({
      config: { provider: "deepseek", model: "deepseek-v4-flash", maxTokens: 256, reasoningEffort: "high" },
      messages: [
        { role: "system", content: "You are terse.", source: "system-prompt" },
        { role: "user", content: [{ type: "text", text: "Hi" }], source: "user" },
      ],
    });
    const result = await runtime.generate(request);
    // V4 thinks first: [{ type: "reasoning", text: "Let me work out…" }, { type: "text", text: "Hello from the simulator." }]
    console.log(result.content.map((part) => part.type));

    // The exact HTTP body for a request, e.g. one rebuilt from a session log, is what was sent:
    const body = await serializeRequest(request, { dialect: "deepseek" });
    console.log(body.slice(0, body.indexOf(",\"messages\""))); // {"model":"deepseek-v4-flash"
    return sim.exchanges[0]?.body === body;
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
