import { Agent, createAgentRegistry, defineTool, forkSeed } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { z } from "zod";

const lookup = defineTool({
  name: "lookup",
  description: "Look up a value by key",
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => {
    if (key === "missing") throw new Error("no such key");
    return `value of ${key}`;
  },
});

/** A recorded session: two tool calls (one failing), a retried request, a model switch, a resume; and a fork of it. */
export interface RecordedSessions {
  readonly events: readonly LogEvent[];
  readonly fork: { readonly events: readonly LogEvent[]; readonly seedLength: number };
  /** The raw bodies the simulator received, in order (a retried request twice). */
  readonly bodies: readonly string[];
}

/** Runs the scripted session through the simulator: real HTTP, the real agent loop. */
export async function recordSessions(): Promise<RecordedSessions> {
  const sim = await startSimulator({
    scenario: {
      responses: [
        { toolCalls: [{ name: "lookup", arguments: { key: "a" } }, { name: "lookup", arguments: { key: "missing" } }] },
        { fault: "http-500" },
        { text: "a is known." },
        { text: "Second turn." },
        { text: "After resume." },
        { text: "In the fork." },
      ],
    },
  });
  try {
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: sim.url })] });
    const retry = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 };
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = new Agent({ log, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief.", tools: [lookup], retry });
    await agent.run("What is a?");
    agent.reconfigure({ provider: "sim", model: "sim-2" });
    await agent.run("Again.");
    // A second agent over the same log: a resume, as another process opening the session would be.
    const resumed = new Agent({ log, runtime, config: { provider: "sim", model: "sim-2" }, systemPrompt: "Be brief.", tools: [lookup], retry });
    await resumed.run("Still there?");
    const events = log.slice();
    const seed = forkSeed(events, events.findIndex((event) => event.type === "turn/end"));
    const forkLog = EventLog.from(createAgentRegistry(), seed);
    await new Agent({ log: forkLog, runtime, config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief.", tools: [lookup], retry }).run("Fork here.");
    return { events, fork: { events: forkLog.slice(), seedLength: seed.length }, bodies: sim.exchanges.map((exchange) => exchange.body) };
  } finally {
    await sim.close();
  }
}
