// 4. Prefix-cache hit ratio of a 200-step scripted session with tools through the simulator.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter, serializeRequest } from "dsh-openai-compatible";
import { CACHE_UNIT, promptTokens, startSimulator } from "dsh-simulator";
import { checkerScript, runCheckerTurns, sharedPrefixes, stepUsages } from "./checker-session.js";
import { lookupTool } from "./lookup-tool.js";

export interface CacheRatioResult {
  readonly requests: number;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  /** Tokens each request shares with the previous one: the most any prefix cache can serve. */
  readonly physicalLimitTokens: number;
  /** The same limit rounded down to whole 64-token cache units, as DeepSeek serves them. */
  readonly unitLimitTokens: number;
  readonly hitRatio: number;
  readonly limitRatio: number;
  readonly breaks: number;
  /** Requests whose cache read fell short of the unit limit (there should be none). */
  readonly shortfalls: number;
}

/** 200 steps: 20 turns of 10 steps, 9 tool calls then an answer each; the prompt changes once, the model once. */
export async function cacheRatioBench(dir: string, turns = 20, stepsPerTurn = 10): Promise<CacheRatioResult> {
  const simulator = await startSimulator({ scenario: { responses: checkerScript(turns, stepsPerTurn, false) } });
  try {
    const adapter = new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: simulator.url, modelDefaults: () => ({ maxTokens: 4096 }) });
    const log = new EventLog({ registry: createAgentRegistry() });
    let prompt = "You are a meticulous checker. Check every part with lookup before you answer.";
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: () => prompt, tools: [lookupTool], maxSteps: stepsPerTurn });
    await runCheckerTurns(agent, turns, () => void (prompt = `${prompt} Report numbers exactly.`), { provider: "sim", model: "sim-2" });
    const requests = await reconstructRequests(log);
    const tokens = await Promise.all(requests.map(async ({ request }) => promptTokens(JSON.parse(await serializeRequest(request, { dialect: "deepseek" })))));
    const usage = stepUsages(log);
    let physical = 0;
    let unit = 0;
    let breaks = 0;
    let shortfalls = 0;
    sharedPrefixes(requests, tokens).forEach(({ shared, isBreak }, at) => {
      if (isBreak) breaks++;
      physical += shared;
      const served = Math.floor(shared / CACHE_UNIT) * CACHE_UNIT;
      unit += served;
      if (usage[at + 1]!.cacheReadTokens < served) shortfalls++;
    });
    const prompt_ = usage.slice(1).reduce((sum, u) => sum + u.inputTokens, 0);
    const read = usage.slice(1).reduce((sum, u) => sum + u.cacheReadTokens, 0);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "cache-session.jsonl"), log.slice().map((event) => JSON.stringify(event)).join("\n"));
    return {
      requests: requests.length,
      promptTokens: prompt_,
      cacheReadTokens: read,
      physicalLimitTokens: physical,
      unitLimitTokens: unit,
      hitRatio: read / prompt_,
      limitRatio: physical / prompt_,
      breaks,
      shortfalls,
    };
  } finally {
    await simulator.close();
  }
}
