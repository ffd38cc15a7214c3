// 13. Google's Gemini API: a 200-step tool session with thinking through the simulator.
import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { GeminiAdapter, serializeRequest } from "dsh-gemini";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { geminiCacheMinimum, geminiPromptTokens, startSimulator } from "dsh-simulator";
import { checkerScript, runCheckerTurns, sharedPrefixes, stepUsages } from "./checker-session.js";
import { lookupTool } from "./lookup-tool.js";

export interface GeminiCacheRow {
  readonly requests: number;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  /** Tokens each request shares with the previous one, counted where Gemini could read them (its minimum and more). */
  readonly physicalLimitTokens: number;
  readonly readOverLimit: number;
  readonly breaks: number;
  /** Requests whose rebuilt body differs from what the simulator received (there must be none). */
  readonly bodyMismatches: number;
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
    const usage = stepUsages(log);
    const prefixes = sharedPrefixes(requests, tokens);
    const physical = prefixes.reduce((sum, { shared }, at) => sum + (shared >= geminiCacheMinimum(requests[at + 1]!.request.config.model) ? shared - (shared % 128) : 0), 0);
    const read = usage.slice(1).reduce((sum, u) => sum + u.cacheReadTokens, 0);
    const logged = log.slice().filter((event) => event.type === "assistant/message").flatMap((event) => (event.data as { content: { thoughtSignature?: string }[] }).content).filter((block) => block.thoughtSignature !== undefined).length;
    return {
      requests: requests.length,
      promptTokens: usage.slice(1).reduce((sum, u) => sum + u.inputTokens, 0),
      cacheReadTokens: read,
      physicalLimitTokens: physical,
      readOverLimit: read / physical,
      breaks: prefixes.filter(({ isBreak }) => isBreak).length,
      bodyMismatches: bodies.filter((body, i) => body !== simulator.exchanges[i]?.body).length,
      signaturesBack: (bodies.at(-1)!.match(/"thoughtSignature":/g) ?? []).length,
      signaturesLogged: logged,
    };
  } finally {
    await simulator.close();
  }
}
