import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { expect, it } from "vitest";
import { Agent } from "./agent.js";
import { createAgentRegistry } from "./register.js";
import { reconstructRequests } from "./reconstruct.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Collects until every reference is gone, across the turns of the event loop that keep WeakRef targets alive. */
async function collected(refs: readonly WeakRef<object>[]): Promise<boolean> {
  for (let round = 0; round < 10; round++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    if (refs.every((ref) => ref.deref() === undefined)) return true;
  }
  return false;
}

it("keeps nothing of a dropped session alive: its log, messages and requests are collected while the runtime lives on", async () => {
  const sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }] } });
  try {
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
    const refs: WeakRef<object>[] = [];
    await (async () => {
      const log = new EventLog({ registry: createAgentRegistry() });
      const agent = new Agent({ log, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief." });
      await agent.run("First.");
      await agent.run("Second.");
      const [request] = await reconstructRequests(log);
      refs.push(new WeakRef(log), new WeakRef(agent), new WeakRef(request!.request), new WeakRef(request!.request.messages), new WeakRef(request!.request.messages[1]!));
    })();
    expect(await collected(refs)).toBe(true);
    expect(runtime).toBeDefined();
  } finally {
    await sim.close();
  }
});
