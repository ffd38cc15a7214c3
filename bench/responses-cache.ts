// 9. OpenAI's Responses API: a 200-step tool session with reasoning through the simulator.
import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ResponsesAdapter, serializeRequest } from "dsh-openai-responses";
import { responsesPromptTokens, startSimulator } from "dsh-simulator";
import { checkerScript, runCheckerTurns, sharedPrefixes, stepUsages } from "./checker-session.js";
import { lookupTool } from "./lookup-tool.js";

export interface ResponsesCacheRow {
  readonly policy: string;
  readonly requests: number;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  /** Tokens each request shares with the previous one, counted where OpenAI could read them (1,024 and more). */
  readonly physicalLimitTokens: number;
  readonly readOverLimit: number;
  readonly breaks: number;
  /** Requests whose rebuilt body differs from what the simulator received (there must be none). */
  readonly bodyMismatches: number;
  /** Reasoning items sent back in the last request: one per earlier answer of the model's series. */
  readonly reasoningItemsBack: number;
}

/** 20 turns of 10 steps (9 tool calls, then an answer), reasoning on every step; the prompt changes once, the model once. */
async function session(policy: "rolling-v1" | "none", turns: number, stepsPerTurn: number): Promise<ResponsesCacheRow> {
  const simulator = await startSimulator({ scenario: { responses: checkerScript(turns, stepsPerTurn, true) } });
  try {
    const runtime = new LlmRuntime({ adapters: [new ResponsesAdapter({ baseUrl: simulator.url })] });
    const log = new EventLog({ registry: createAgentRegistry() });
    // Above OpenAI's 1,024-token minimum from the first request on.
    let prompt = `You are a meticulous checker. Check every part with lookup before you answer. ${"Standing instructions. ".repeat(300)}`;
    const agent = new Agent({ log, runtime, config: { provider: "openai-responses", model: "gpt-5.6", cachePolicy: policy }, systemPrompt: () => prompt, tools: [lookupTool], maxSteps: stepsPerTurn });
    await runCheckerTurns(agent, turns, () => void (prompt = `${prompt} Report numbers exactly.`), { provider: "openai-responses", model: "gpt-5.6-terra", cachePolicy: policy });
    const requests = await reconstructRequests(log);
    const bodies = await Promise.all(requests.map(({ request }) => serializeRequest(request, { breakpoints: true })));
    const tokens = bodies.map((body) => responsesPromptTokens(JSON.parse(body)));
    const usage = stepUsages(log);
    const prefixes = sharedPrefixes(requests, tokens);
    const physical = prefixes.reduce((sum, { shared }) => sum + (shared >= 1024 ? shared : 0), 0);
    const breaks = prefixes.filter(({ isBreak }) => isBreak).length;
    const promptTokens = usage.slice(1).reduce((sum, u) => sum + u.inputTokens, 0);
    const read = usage.slice(1).reduce((sum, u) => sum + u.cacheReadTokens, 0);
    const last = JSON.parse(bodies.at(-1)!) as { input: { type?: string }[] };
    return {
      policy,
      requests: requests.length,
      promptTokens,
      cacheReadTokens: read,
      physicalLimitTokens: physical,
      readOverLimit: read / physical,
      breaks,
      bodyMismatches: bodies.filter((body, i) => body !== simulator.exchanges[i]?.body).length,
      reasoningItemsBack: last.input.filter((item) => item.type === "reasoning").length,
    };
  } finally {
    await simulator.close();
  }
}

/** The session with the rolling-v1 breakpoints, and with the implicit cache alone. */
export async function responsesCacheBench(turns = 20, stepsPerTurn = 10): Promise<readonly ResponsesCacheRow[]> {
  return [await session("rolling-v1", turns, stepsPerTurn), await session("none", turns, stepsPerTurn)];
}
