import { LlmRuntime, freezeRequest, type Message } from "dsh-llm";
import { ResponsesAdapter, serializeRequest } from "dsh-openai-responses";
import { startSimulator } from "dsh-simulator";

export async function main(): Promise<boolean> {
  // A loopback stand-in for OpenAI; for the real API use baseUrl "https://api.openai.com/v1" and a key.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "Two files." }] } });
  try {
    const adapter = new ResponsesAdapter({ baseUrl: sim.url, apiKey: process.env.OPENAI_API_KEY });
    const runtime = new LlmRuntime({ adapters: [adapter] });
    const config = { provider: "openai-responses", model: "gpt-5.6", reasoningEffort: "medium" } as const;
    const tools = [{ name: "list_dir", description: "Lists a directory.", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    const messages: readonly Message[] = [
      { role: "system", content: "You are terse.", source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "What is here?" }], source: "user" },
    ];
    const first = await runtime.generate(freezeRequest({ config, tools, messages }));
    // The reasoning item (with its encrypted content) is kept as it came: ["provider-item","tool-call"]
    console.log(first.content.map((part) => part.type));

    const call = first.content.find((part) => part.type === "tool-call");
    if (call?.type !== "tool-call") return false;
    const request = freezeRequest({
      config,
      tools,
      messages: [
        ...messages,
        { role: "assistant", content: first.content, source: "model" },
        { role: "tool", callId: call.callId, toolName: call.name, content: [{ type: "text", text: "a.txt\nb.txt" }], isError: false, source: "tool" },
      ],
    });
    const second = await runtime.generate(request);
    console.log(second.content.at(-1)); // { type: 'text', text: 'Two files.', itemId: 'msg_…' }

    // Nothing depends on server-side state: the exact body is a function of the messages alone.
    const body = await serializeRequest(request);
    return sim.exchanges[1]?.body === body && body.includes('"store":false');
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
