import { LlmRuntime, freezeRequest } from "dsh-llm";
import { AnthropicAdapter, serializeRequest } from "dsh-anthropic";
import { startSimulator } from "dsh-simulator";

export async function main(): Promise<boolean> {
  // A loopback stand-in for the Messages API; for Claude leave baseUrl out and pass apiKey: process.env.ANTHROPIC_API_KEY.
  const sim = await startSimulator({ scenario: { responses: [{ reasoning: "A greeting.", text: "Hello from the simulator." }] } });
  try {
    const adapter = new AnthropicAdapter({ baseUrl: sim.origin, apiKey: process.env.ANTHROPIC_API_KEY });
    const runtime = new LlmRuntime({ adapters: [adapter] });
    const request = freezeRequest({
      // cachePolicy and cacheTtl are logged call config: a rebuild places the same markers.
      config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024, reasoningEffort: "low", cachePolicy: "rolling-v1", cacheTtl: "5m" },
      messages: [
        { role: "system", content: "You are terse.", source: "system-prompt" },
        { role: "user", content: [{ type: "text", text: "Hi" }], source: "user" },
      ],
    });
    const result = await runtime.generate(request);
    console.log(result.content.map((part) => part.type)); // [ 'reasoning', 'text' ]: thinking comes back signed

    // The exact HTTP body for a request, e.g. one rebuilt from a session log, is what was sent:
    const body = await serializeRequest(request);
    console.log(body.match(/"cache_control"/g)?.length); // 2: the end of the system prompt and the last block
    return sim.exchanges[0]?.body === body;
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
