// 4. Prefix-cache hit ratio of a 200-step scripted session with tools through the simulator.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter, serializeRequest } from "dsh-openai-compatible";
import { CACHE_UNIT, promptTokens, startSimulator, type ScriptedResponse } from "dsh-simulator";
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

function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** 200 steps: 20 turns of 10 steps, 9 tool calls then an answer each; the prompt changes once, the model once. */
export async function cacheRatioBench(dir: string, turns = 20, stepsPerTurn = 10): Promise<CacheRatioResult> {
  const responses: ScriptedResponse[] = [];
  for (let turn = 0; turn < turns; turn++) {
    for (let step = 0; step < stepsPerTurn - 1; step++) responses.push({ text: `Checking part ${step}.`, toolCalls: [{ name: "lookup", arguments: { key: `t${turn}-s${step}` } }] });
    responses.push({ text: `Turn ${turn} done: all ${stepsPerTurn - 1} parts checked.` });
  }
  const simulator = await startSimulator({ scenario: { responses } });
  try {
    const adapter = new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: simulator.url, modelDefaults: () => ({ maxTokens: 4096 }) });
    const log = new EventLog({ registry: createAgentRegistry() });
    let prompt = "You are a meticulous checker. Check every part with lookup before you answer.";
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: () => prompt, tools: [lookupTool], maxSteps: stepsPerTurn });
    for (let turn = 0; turn < turns; turn++) {
      if (turn === Math.floor(turns / 2)) prompt = `${prompt} Report numbers exactly.`;
      if (turn === Math.floor((3 * turns) / 4)) agent.reconfigure({ provider: "sim", model: "sim-2" });
      await agent.run(`Check batch ${turn}.`);
    }
    const requests = await reconstructRequests(log);
    const tokens = await Promise.all(requests.map(async ({ request }) => promptTokens(JSON.parse(await serializeRequest(request, { dialect: "deepseek" })))));
    const usage = log.slice().flatMap((event) => (event.type === "step/end" ? [(event.data as { usage: { cacheReadTokens: number; inputTokens: number } }).usage] : []));
    let physical = 0;
    let unit = 0;
    let breaks = 0;
    let shortfalls = 0;
    requests.forEach((current, i) => {
      if (i === 0) return;
      const previous = requests[i - 1]!;
      const sameModel = previous.request.config.model === current.request.config.model;
      const shared = sameModel ? commonPrefix(tokens[i - 1]!, tokens[i]!) : 0;
      if (shared < tokens[i - 1]!.length) breaks++;
      physical += shared;
      const served = Math.floor(shared / CACHE_UNIT) * CACHE_UNIT;
      unit += served;
      if (usage[i]!.cacheReadTokens < served) shortfalls++;
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
