import { LlmRuntime, freezeRequest, isAgentLoopRequest, markAgentLoopRequest, type LlmAdapter } from "dsh-llm";

// A stand-in adapter; real ones (e.g. dsh-openai-compatible) serialize and send the request.
const echo: LlmAdapter = {
  provider: "echo",
  async *stream(request) {
    yield { type: "text-delta", text: `${request.messages.length} messages received` };
    yield { type: "finish", reason: "stop" };
  },
};

export async function main(): Promise<string> {
  const runtime = new LlmRuntime({ adapters: [echo] });
  runtime.on("llm/stream", ({ request, isAgentLoopRequest }) => console.log(request.config.model, isAgentLoopRequest));

  const request = markAgentLoopRequest(
    freezeRequest({
      config: { provider: "echo", model: "echo-1", maxTokens: 256 },
      messages: [
        { role: "system", content: "You are terse.", source: "system-prompt" },
        { role: "user", content: [{ type: "text", text: "Hi" }], source: "user" },
      ],
    }),
  );
  try {
    (request.config as { model: string }).model = "other"; // frozen: throws in strict mode
  } catch (error) {
    console.log((error as Error).name); // TypeError
  }
  console.log(isAgentLoopRequest(request), isAgentLoopRequest({ ...request })); // true false
  const result = await runtime.generate(request);
  console.log(result.content); // [{ type: "text", text: "2 messages received" }]
  return result.content[0]?.type === "text" ? result.content[0].text : "";
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
