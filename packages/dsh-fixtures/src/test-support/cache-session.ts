import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { z } from "zod";
import { recordFixture } from "../record.js";
import { fixtureDir, sessionHeader } from "./session.js";

const adapter = new AnthropicAdapter({ baseUrl: "http://127.0.0.1:9", apiKey: "unused" });
/** What the current code sends with: the Messages API adapter's defaults and wire profile. */
export const current = { modelDefaults: (_provider: string, model: string) => adapter.modelDefaults(model), wireProfile: (_provider: string, model: string) => adapter.wireProfile(model) };

/** Four turns with a tool on the simulated Messages API; with `stampAt`, a hook stamps the time into the prompt from that turn on. */
export async function record(stampAt?: number): Promise<string> {
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "look", arguments: {} }] }, { text: "Seen." }, { text: "Two." }, { text: "Three." }, { text: "Four." }] } });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    const look = defineTool({ name: "look", description: "Looks around", parameters: z.object({}), execute: () => "a tidy room ".repeat(40) });
    let turn = 0;
    const prompt = "You are careful. Check every answer twice before you give it. ".repeat(100);
    const agent = new Agent({
      log,
      runtime: new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-test" })] }),
      config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 },
      systemPrompt: () => (stampAt !== undefined && turn >= stampAt ? `It is 12:0${turn}. ${prompt}` : prompt),
      tools: [look],
    });
    for (; turn < 4; turn++) await agent.run(`Question ${turn}?`);
    const dir = await fixtureDir(stampAt === undefined ? "steady" : "stamped");
    await recordFixture({ header: sessionHeader(`cache-${stampAt ?? "none"}`), events: log.slice() }, dir, { cwd: process.cwd() });
    return dir;
  } finally {
    await sim.close();
  }
}

