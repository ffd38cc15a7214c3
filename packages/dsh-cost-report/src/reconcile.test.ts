import { Agent, createAgentRegistry, defineTool, stepCosts, costTotals, type PriceOf } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { GeminiAdapter } from "dsh-gemini";
import { LlmRuntime, type LlmAdapter, type LlmCallConfig } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { ResponsesAdapter } from "dsh-openai-responses";
import { startSimulator, type ScriptedResponse, type Simulator } from "dsh-simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { costReport } from "./report.js";
import { referenceCosts } from "./test-support/reference.js";

/** One turn of a generated session: what the user says, how many tool calls the model makes first, whether the prompt changes before it, whether the history is compacted after it. */
interface PlannedTurn {
  readonly text: string;
  readonly toolCalls: number;
  readonly newPrompt: boolean;
  readonly compactAfter: boolean;
}

const turnArbitrary = fc.record({ text: fc.string({ minLength: 1, maxLength: 40 }), toolCalls: fc.integer({ min: 0, max: 2 }), newPrompt: fc.boolean(), compactAfter: fc.boolean() });

/** Each API, with a system prompt long enough for its cache's minimum (Gemini 3 caches from 4,096 tokens). */
const dialects: readonly [string, (sim: Simulator) => LlmAdapter, LlmCallConfig, number][] = [
  ["Chat Completions (DeepSeek)", (s) => new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: s.url }), { provider: "deepseek", model: "deepseek-v4-flash" }, 300],
  ["the Responses API", (s) => new ResponsesAdapter({ baseUrl: s.url, apiKey: "sk-test" }), { provider: "openai-responses", model: "gpt-5.6" }, 300],
  ["the Messages API, hour-long writes", (s) => new AnthropicAdapter({ baseUrl: s.origin, apiKey: "sk-test" }), { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024, cacheTtl: "1h" }, 300],
  ["the Gemini API", (s) => new GeminiAdapter({ baseUrl: `${s.origin}/v1beta`, apiKey: "test" }), { provider: "gemini", model: "gemini-3.8-flash" }, 900],
];

/** The same price for every model, with every kind of token at its own rate. */
const prices: PriceOf = () => ({ input: 3, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6, output: 15, checked: "2026-12-07", source: "test" });

const note = defineTool({ name: "note", description: "Takes a note", parameters: z.object({ text: z.string() }), execute: ({ text }) => `noted: ${text} `.repeat(30) });

/** Runs the planned turns against `adapter` on the simulator; its log. */
async function runPlan(plan: readonly PlannedTurn[], adapter: (sim: Simulator) => LlmAdapter, config: LlmCallConfig, promptRepeats: number): Promise<EventLog> {
  const responses: ScriptedResponse[] = [];
  for (const [index, turn] of plan.entries()) {
    for (let call = 0; call < turn.toolCalls; call++) responses.push({ toolCalls: [{ name: "note", arguments: { text: `${index}.${call}` } }] });
    responses.push({ text: `Answer ${index}. `.repeat(20) });
    if (turn.compactAfter) responses.push({ text: "They talked." });
  }
  const sim = await startSimulator({ scenario: { responses }, keepBodies: false });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    let prompt = "Be brief and exact. ".repeat(promptRepeats);
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter(sim)] }), config, systemPrompt: () => prompt, tools: [note] });
    for (const turn of plan) {
      if (turn.newPrompt) prompt = `${prompt}Changed. `;
      await agent.run(turn.text);
      if (turn.compactAfter) await agent.compact({ keepRecent: 2 });
    }
    return log;
  } finally {
    await sim.close();
  }
}

describe("costReport by event", () => {
  it.each(dialects)("adds up, kind by kind and to the dollar, to the usage every step of a generated session on %s reported", async (_name, adapter, config, promptRepeats) => {
    // What the generated sessions held, so the property is known to have met reads, writes and summaries.
    const seen = { reads: 0, hourWrites: 0, summaries: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(turnArbitrary, { minLength: 1, maxLength: 4 }), async (plan) => {
        const log = await runPlan(plan, adapter, config, promptRepeats);
        const report = costReport(log, { prices, byEvent: true });
        const events = report.events!;
        const sum = (pick: (row: (typeof events)[number]) => number) => events.reduce((total, row) => total + pick(row), 0);
        const { total } = report;
        expect(sum((row) => row.cacheReadTokens)).toBe(total.cacheReadTokens);
        expect(sum((row) => row.cacheWrite5mTokens + row.cacheWrite1hTokens)).toBe(total.cacheWriteTokens);
        expect(sum((row) => row.uncachedTokens + row.cacheReadTokens + row.cacheWrite5mTokens + row.cacheWrite1hTokens)).toBe(total.inputTokens);
        expect(sum((row) => row.outputTokens)).toBe(total.outputTokens);
        expect(sum((row) => row.cost.totalUsd)).toBeCloseTo(total.cost.totalUsd, 9);
        expect(total).toEqual(costTotals(stepCosts(log, prices)));
        // Every row is an event of the log that the model saw or wrote, and each request's prompt held the system prompt.
        for (const row of events) expect(log.get(row.seq)?.type).toBe(row.type);
        expect(events.find((row) => row.type === "system/message")?.requests).toBeGreaterThan(0);
        // Each row is the plain computation's (every part of every request visited), rounded to whole tokens.
        const reference = referenceCosts(log, prices);
        expect(events.map((row) => row.seq)).toEqual([...reference.keys()].sort((a, b) => a - b));
        for (const row of events) {
          const expected = reference.get(row.seq)!;
          const tokens = [row.cacheReadTokens, row.cacheWrite1hTokens, row.cacheWrite5mTokens, row.uncachedTokens];
          tokens.forEach((count, kind) => expect(Math.abs(count - expected.tokens[kind]!)).toBeLessThan(1 + 1e-6));
          expect([row.requests, row.outputTokens]).toEqual([expected.requests, expected.outputTokens]);
          expect(row.cost.totalUsd).toBeCloseTo(expected.usd, 10);
        }
        seen.reads += total.cacheReadTokens;
        seen.hourWrites += sum((row) => row.cacheWrite1hTokens);
        seen.summaries += events.filter((row) => row.label === "compaction summary").length;
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 8), examples: [[[{ text: "a", toolCalls: 2, newPrompt: false, compactAfter: false }, { text: "b", toolCalls: 0, newPrompt: false, compactAfter: true }, { text: "c", toolCalls: 0, newPrompt: false, compactAfter: false }]]] },
    );
    expect(seen.reads).toBeGreaterThan(0);
    expect(seen.summaries).toBeGreaterThan(0);
    if (config.provider === "anthropic") expect(seen.hourWrites).toBeGreaterThan(0);
  });
});
