import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry, subagentTool } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { JsonlStore } from "dsh-log";
import { ChatCompletionsAdapter, DEEPSEEK_MODELS } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { afterEach, beforeEach, expect, it } from "vitest";
import { costReport } from "./report.js";
import { treeCost } from "./tree.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-tree-cost-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("prices a parent and each subagent session it links, and adds them up to every token the provider was sent", async () => {
  const research = (task: string) => ({ name: "research", arguments: { task } });
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [research("Japan?"), research("France?")] }, { text: "Tokyo." }, { text: "Paris." }, { text: "Tokyo and Paris." }] } });
  try {
    const store = new JsonlStore(dir);
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url, catalog: DEEPSEEK_MODELS })] });
    const config = { provider: "deepseek", model: "deepseek-v4-flash" };
    const { info, log } = await store.create({ registry: createAgentRegistry() });
    const tool = subagentTool({ name: "research", description: "Researches.", store, parentSessionId: info.sessionId, runtime, config, systemPrompt: "You research." });
    await new Agent({ log, runtime, config, systemPrompt: "You delegate.", tools: [tool] }).run("Capitals?");
    await log.close();
    const prices = runtime.price.bind(runtime);
    const tree = await treeCost(store, info.sessionId, { prices });
    expect(tree.sessions).toHaveLength(3);
    expect(tree.sessions[0]).toMatchObject({ sessionId: info.sessionId, report: { steps: [{}, {}] } });
    expect(tree.sessions[0]).not.toHaveProperty("parent");
    for (const child of tree.sessions.slice(1)) {
      expect(child.parent).toEqual({ sessionId: info.sessionId, seq: expect.any(Number) });
      const { log: own } = await store.read(child.sessionId, createAgentRegistry());
      expect(child.report).toEqual(costReport(own.slice(), { prices }));
      expect(child.report.steps).toHaveLength(1);
    }
    expect(tree.total.inputTokens).toBe(sim.exchanges.reduce((sum, exchange) => sum + exchange.promptTokens, 0));
    expect(tree.total.cost.totalUsd).toBeCloseTo(tree.sessions.reduce((sum, session) => sum + session.report.total.cost.totalUsd, 0), 12);
    expect(tree.total.cost.totalUsd).toBeGreaterThan(tree.sessions[0]!.report.total.cost.totalUsd);
    expect(tree.total.unpricedSteps).toBe(0);
  } finally {
    await sim.close();
  }
});
