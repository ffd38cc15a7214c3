import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { createJsonlLog } from "dsh-log";
import { z } from "zod";
const n = Number(process.argv[2]);
const path = process.argv[3]!;
const adapter: LlmAdapter = {
  provider: "sim",
  async *stream(request) {
    if (request.messages.at(-1)?.role === "tool") { yield { type: "text-delta", text: "done" }; yield { type: "finish", reason: "stop" }; return; }
    for (let i = 0; i < n; i++) yield { type: "tool-call-delta", index: i, callId: `call_${i}`, name: "t", argumentsDelta: `{"i":${i}}` };
    yield { type: "finish", reason: "tool-calls" };
  },
};
const t = defineTool({ name: "t", description: "t", parameters: z.object({ i: z.number() }), execute: ({ i }) => `ok ${i}` });
const { log } = await createJsonlLog(path, { registry: createAgentRegistry() });
const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: "s", tools: [t] });
const t0 = Date.now();
await agent.run("go");
await log.close();
console.log("generated", n, Date.now() - t0, "ms");
