import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, childLinks, createAgentRegistry, subagentTool, type AgentTool } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog, JsonlStore } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { afterEach, beforeEach, expect, it } from "vitest";
import { subagentCacheReads } from "./subagent-reads.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-subagent-reads-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PROMPT = "You are careful and you check every fact twice before you answer. ".repeat(30);

/** A parent that hands one task to a subagent with `childPrompt` (and the parent's tool list when `sameTools`), on the simulated DeepSeek; the parent's and the child's logs, and the cache reads the simulator reported for the child's first request. */
async function delegated(childPrompt: string, sameTools: boolean) {
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "research", arguments: { task: "Find it." } }] }, { text: "Found." }, { text: "Done." }] } });
  try {
    const store = new JsonlStore(dir);
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    const config = { provider: "deepseek", model: "deepseek-v4-flash" };
    const { info, log } = await store.create({ registry: createAgentRegistry() });
    // The subagent is offered a tool of the same schema as the parent's, so the two tool lists are the same bytes.
    const research = (tools?: AgentTool[]) => subagentTool({ name: "research", description: "Researches.", store, parentSessionId: info.sessionId, runtime, config, systemPrompt: childPrompt, ...(tools === undefined ? {} : { tools }) });
    await new Agent({ log, runtime, config, systemPrompt: PROMPT, tools: [research(sameTools ? [research()] : undefined)] }).run("Look it up.");
    await log.close();
    const [link] = childLinks(log.slice());
    const child: EventLog = (await store.read(link!.child.sessionId, createAgentRegistry())).log;
    return { parent: log, child, reported: sim.exchanges[1]! };
  } finally {
    await sim.close();
  }
}

it("says a subagent that repeats its parent's prompt and tools can read the parent's cache, as the provider reported", async () => {
  const { parent, child, reported } = await delegated(PROMPT, true);
  const reads = await subagentCacheReads(parent, child);
  expect(reported.cacheHitTokens).toBeGreaterThan(0);
  expect(reads).toEqual({ readShare: reported.cacheHitTokens / reported.promptTokens, dispatchSeq: expect.any(Number) });
  expect(child.get(reads!.dispatchSeq)!.type).toBe("request/dispatch");
});

it("says a subagent with a prompt and tools of its own reads nothing of its parent's cache", async () => {
  const { parent, child, reported } = await delegated("You research one question.", false);
  expect(reported.cacheHitTokens).toBe(0);
  expect(await subagentCacheReads(parent, child)).toMatchObject({ readShare: 0 });
});

it("has nothing to say of a subagent that sent no request", async () => {
  const log = new EventLog({ registry: createAgentRegistry() });
  expect(await subagentCacheReads(log, log)).toBeUndefined();
});
