// 9. OpenAI's Responses API: a 200-step tool session with reasoning through the simulator.
import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ResponsesAdapter, serializeRequest } from "dsh-openai-responses";
import { responsesPromptTokens, startSimulator } from "dsh-simulator";
import { checkerCacheFigures, checkerScript, runCheckerTurns, type CheckerCacheFigures } from "./checker-session.js";
import { lookupTool } from "./lookup-tool.js";

/** The session's cache figures (shared prefixes counted where OpenAI could read them: 1,024 tokens and more). */
export interface ResponsesCacheRow extends CheckerCacheFigures {
  readonly policy: string;
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
    const last = JSON.parse(bodies.at(-1)!) as { input: { type?: string }[] };
    return {
      policy,
      ...checkerCacheFigures(log, requests, bodies, tokens, simulator.exchanges, (shared) => (shared >= 1024 ? shared : 0)),
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
