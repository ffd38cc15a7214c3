// 6. Anthropic explicit caching: a 200-step tool session through the simulator's Messages API, the
// rolling-v1 breakpoint policy against the common "system prompt + last user message" one.
import { Agent, createAgentRegistry } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { renderMessagesPrompt, startSimulator, type MessagesBody, type RenderedBlock, type ScriptedResponse } from "dsh-simulator";
import { lookupTool } from "./lookup-tool.js";

/** What one policy cost over the session. */
export interface PolicyCost {
  readonly policy: string;
  readonly requests: number;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** Tokens neither read nor written (Anthropic's `input_tokens`). */
  readonly uncachedTokens: number;
  /** Input cost in base input-token units: uncached 1x, 5-minute writes 1.25x, reads 0.1x. */
  readonly costUnits: number;
  /** The most explicit caching can read at all: per request, the block prefix it shares with the one before. */
  readonly ceilingTokens: number;
  readonly readOverCeiling: number;
}

/** The tokens of the longest block prefix two rendered prompts share (a cache hit ends at a block). */
function sharedPrefixTokens(a: readonly RenderedBlock[], b: readonly RenderedBlock[]): number {
  let shared = 0;
  for (let i = 0; i < a.length && i < b.length && a[i]!.prefixKey === b[i]!.prefixKey; i++) shared = b[i]!.cumulativeTokens;
  return shared;
}

/** The scripted answers: per turn, tool steps (one of them calling eight tools at once), then an answer. */
function script(turns: number, stepsPerTurn: number): ScriptedResponse[] {
  const responses: ScriptedResponse[] = [];
  for (let turn = 0; turn < turns; turn++) {
    for (let step = 0; step < stepsPerTurn - 1; step++) {
      const calls = step === 3 ? 8 : 1;
      responses.push({ reasoning: `Part ${step} next.`, text: `Checking part ${step}.`, toolCalls: Array.from({ length: calls }, (_, c) => ({ name: "lookup", arguments: { key: `t${turn}-s${step}-c${c}` } })) });
    }
    responses.push({ reasoning: "All parts checked.", text: `Turn ${turn} done.` });
  }
  return responses;
}

async function runPolicy(policy: string, turns: number, stepsPerTurn: number): Promise<PolicyCost> {
  const simulator = await startSimulator({ scenario: { responses: script(turns, stepsPerTurn) } });
  try {
    const agent = new Agent({
      log: new EventLog({ registry: createAgentRegistry() }),
      runtime: new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: simulator.origin })] }),
      config: { provider: "anthropic", model: "claude-sonnet-4-6", reasoningEffort: "low", cachePolicy: policy, cacheTtl: "5m" },
      systemPrompt: `You are a meticulous checker. Check every part with lookup before you answer. ${"Keep exact records of every value. ".repeat(150)}`,
      tools: [lookupTool],
      maxSteps: stepsPerTurn,
    });
    for (let turn = 0; turn < turns; turn++) {
      await agent.run(`Check batch ${turn}.`);
      simulator.advanceClock(30_000);
    }
    const exchanges = simulator.exchanges;
    let previous: RenderedBlock[] | undefined;
    let ceiling = 0;
    for (const exchange of exchanges) {
      const blocks = renderMessagesPrompt(JSON.parse(exchange.body) as MessagesBody);
      if (previous !== undefined) ceiling += sharedPrefixTokens(previous, blocks);
      previous = blocks;
    }
    const sum = (pick: (exchange: (typeof exchanges)[number]) => number) => exchanges.reduce((total, exchange) => total + pick(exchange), 0);
    const promptTokens = sum((exchange) => exchange.promptTokens);
    const read = sum((exchange) => exchange.cacheHitTokens);
    const written = sum((exchange) => exchange.cacheWriteTokens);
    const uncached = promptTokens - read - written;
    return {
      policy,
      requests: exchanges.length,
      promptTokens,
      cacheReadTokens: read,
      cacheWriteTokens: written,
      uncachedTokens: uncached,
      costUnits: uncached + 1.25 * written + 0.1 * read,
      ceilingTokens: ceiling,
      readOverCeiling: ceiling === 0 ? 0 : read / ceiling,
    };
  } finally {
    await simulator.close();
  }
}

/** Both policies over the same scripted session (20 turns of 10 steps by default). */
export async function anthropicCacheBench(turns = 20, stepsPerTurn = 10): Promise<{ readonly ours: PolicyCost; readonly common: PolicyCost }> {
  return { ours: await runPolicy("rolling-v1", turns, stepsPerTurn), common: await runPolicy("system-and-last-user-v1", turns, stepsPerTurn) };
}
