import { Agent, createAgentRegistry } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator, type Simulator } from "dsh-simulator";
import { coldGateway } from "dsh-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { cacheShortfalls, watchCacheReads, type CacheShortfall } from "./read-check.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Three turns through `adapter` (built on the simulator) with a prompt above every cache's minimum, watched as they run. */
async function run(adapter: (sim: Simulator) => LlmAdapter, config: { provider: string; model: string; maxTokens?: number }) {
  sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }, { text: "Three." }] } });
  const log = new EventLog({ registry: createAgentRegistry() });
  const seen: CacheShortfall[] = [];
  const watch = watchCacheReads(log, (shortfall) => seen.push(shortfall));
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter(sim)] }), config, systemPrompt: "Check every answer twice before you give it. ".repeat(150) });
  for (const text of ["one", "two", "three"]) await agent.run(text);
  await watch.idle();
  watch.stop();
  return { log, seen };
}

const anthropic = (gatewayFrom?: number) => (s: Simulator) => {
  const direct = new AnthropicAdapter({ baseUrl: s.origin, apiKey: "sk-test" });
  return gatewayFrom === undefined ? direct : coldGateway(direct, gatewayFrom);
};
const claude = { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 };

describe("the cache reads a provider reported, against those the log says it should get", () => {
  it("raises nothing while the provider reads what its rules say, on the Messages API and on DeepSeek's cache", async () => {
    expect((await run(anthropic(), claude)).seen).toEqual([]);
    const deepseek = await run((s) => new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: s.url }), { provider: "deepseek", model: "deepseek-v4-flash" });
    expect(deepseek.seen).toEqual([]);
    expect(await cacheShortfalls(deepseek.log)).toEqual([]);
  });

  it("raises a shortfall for each request a gateway sent cold, live and from the recording alike", async () => {
    const { log, seen } = await run(anthropic(2), claude);
    expect(seen.map((shortfall) => [shortfall.turn, shortfall.step, shortfall.reportedReadTokens])).toEqual([
      [1, 0, 0],
      [2, 0, 0],
    ]);
    for (const shortfall of seen) {
      expect(shortfall.reportedShare).toBe(0);
      expect(shortfall.expectedShare).toBeGreaterThan(0.5);
      expect(shortfall.expectedReadTokens).toBe(Math.round(shortfall.expectedShare * shortfall.promptTokens));
      expect(log.get(shortfall.dispatchSeq)?.type).toBe("request/dispatch");
    }
    expect(await cacheShortfalls(log)).toEqual(seen);
    // A tolerance as wide as the expected share names nothing.
    expect(await cacheShortfalls(log, { tolerance: 1 })).toEqual([]);
  });

  it("compares the events already in the log when it starts, once each, and nothing after it stops", async () => {
    const { log } = await run(anthropic(3), claude);
    const late: CacheShortfall[] = [];
    const watch = watchCacheReads(log, (shortfall) => late.push(shortfall));
    await watch.idle();
    expect(late.map((shortfall) => shortfall.turn)).toEqual([2]);
    watch.stop();
    await log.append([{ type: "ui/progress", data: {} }]).catch(() => undefined);
    await watch.idle();
    expect(late).toHaveLength(1);
  });

  it("hands a failure to compare to onError and stops", async () => {
    // A provider that names no wire profile: its requests cannot be rebuilt to bytes.
    const acme: LlmAdapter = {
      provider: "acme",
      async *stream() {
        yield { type: "text-delta", text: "hi" };
        yield { type: "usage", usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } };
        yield { type: "finish", reason: "stop" };
      },
    };
    const log = new EventLog({ registry: createAgentRegistry() });
    const errors: unknown[] = [];
    const seen: CacheShortfall[] = [];
    const watch = watchCacheReads(log, (shortfall) => seen.push(shortfall), { onError: (error) => errors.push(error) });
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [acme] }), config: { provider: "acme", model: "a-1" } });
    await agent.run("one");
    await agent.run("two");
    await watch.idle();
    expect(errors).toEqual([expect.objectContaining({ code: "WIRE_UNKNOWN_PROVIDER" })]);
    expect(seen).toEqual([]);
    await expect(cacheShortfalls(log)).rejects.toMatchObject({ code: "WIRE_UNKNOWN_PROVIDER" });
  });
});
