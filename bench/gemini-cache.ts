// 13. Google's Gemini API: a 200-step tool session with thinking through the simulator.
import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { GeminiAdapter, serializeRequest } from "dsh-gemini";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { geminiCacheMinimum, geminiPromptTokens, startSimulator } from "dsh-simulator";
import { checkerCacheFigures, checkerScript, runCheckerTurns, type CheckerCacheFigures } from "./checker-session.js";
import { lookupTool } from "./lookup-tool.js";

/** The session's cache figures (shared prefixes counted in whole 128-token steps from the model's minimum). */
export interface GeminiCacheRow extends CheckerCacheFigures {
  /** Signed parts in the last request: every signature the session's answers carried, back in place. */
  readonly signaturesBack: number;
  /** Signatures the answers carried, as logged. */
  readonly signaturesLogged: number;
}

/**
 * 20 turns of 10 steps (9 tool calls, then an answer) on Gemini 3.8 Flash with thinking; the prompt
 * changes once, the model once (to Gemini 3.5 Flash), as in section 10.
 */
export async function geminiCacheBench(turns = 20, stepsPerTurn = 10): Promise<GeminiCacheRow> {
  const simulator = await startSimulator({ scenario: { responses: checkerScript(turns, stepsPerTurn, true) } });
  try {
    const runtime = new LlmRuntime({ adapters: [new GeminiAdapter({ baseUrl: `${simulator.origin}/v1beta` })] });
    const log = new EventLog({ registry: createAgentRegistry() });
    // Above Gemini 3's 4,096-token minimum from the first request on.
    let prompt = `You are a meticulous checker. Check every part with lookup before you answer. ${"Standing instructions. ".repeat(1200)}`;
    const config = { provider: "gemini", model: "gemini-3.8-flash" } as const;
    const agent = new Agent({ log, runtime, config, systemPrompt: () => prompt, tools: [lookupTool], maxSteps: stepsPerTurn });
    await runCheckerTurns(agent, turns, () => void (prompt = `${prompt} Report numbers exactly.`), { ...config, model: "gemini-3.5-flash" });
    const requests = await reconstructRequests(log);
    const bodies = await Promise.all(requests.map(({ request }) => serializeRequest(request)));
    const tokens = bodies.map((body) => geminiPromptTokens(JSON.parse(body)));
    const readable = (shared: number, request: (typeof requests)[number]) => (shared >= geminiCacheMinimum(request.request.config.model) ? shared - (shared % 128) : 0);
    const logged = log.slice().filter((event) => event.type === "assistant/message").flatMap((event) => (event.data as { content: { thoughtSignature?: string }[] }).content).filter((block) => block.thoughtSignature !== undefined).length;
    return {
      ...checkerCacheFigures(log, requests, bodies, tokens, simulator.exchanges, readable),
      signaturesBack: (bodies.at(-1)!.match(/"thoughtSignature":/g) ?? []).length,
      signaturesLogged: logged,
    };
  } finally {
    await simulator.close();
  }
}
