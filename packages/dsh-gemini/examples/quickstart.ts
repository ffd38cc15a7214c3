import { LlmRuntime, freezeRequest, type Message } from "dsh-llm";
import { GeminiAdapter, serializeRequest } from "dsh-gemini";
import { startSimulator } from "dsh-simulator";

export async function main(): Promise<boolean> {
  // A loopback stand-in for Google; for the real API use baseUrl "https://generativelanguage.googleapis.com/v1beta" and a key.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "Two files." }] } });
  try {
    const adapter = new GeminiAdapter({ baseUrl: `${sim.origin}/v1beta`, apiKey: process.env.GEMINI_API_KEY });
    const runtime = new LlmRuntime({ adapters: [adapter] });
    const config = { provider: "gemini", model: "gemini-3.8-flash", reasoningEffort: "low" } as const;
    const tools = [{ name: "list_dir", description: "Lists a directory.", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    const messages: readonly Message[] = [
      { role: "system", content: "You are terse.", source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "What is here?" }], source: "user" },
    ];
    const first = await runtime.generate(freezeRequest({ config, tools, messages }));
    // The model's thought summary, then its call, signed: ["reasoning","tool-call"]
    console.log(first.content.map((part) => part.type));

    const call = first.content.find((part) => part.type === "tool-call");
    if (call?.type !== "tool-call" || call.thoughtSignature === undefined) return false;
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
    console.log(second.content.at(-1)?.type, second.finishReason); // text stop

    // The signature went back in the call's own part, and the exact body is a function of the messages alone.
    const body = await serializeRequest(request);
    return sim.exchanges[1]?.body === body && body.includes(`"thoughtSignature":${JSON.stringify(call.thoughtSignature)}`);
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
