import { Agent, compactionForecastEvent, createAgentRegistry, stepEndEvent, type CompactionForecast } from "dsh-agent";
import { LlmError, LlmRuntime, usageCost, type LlmAdapter, type TokenUsage } from "dsh-llm";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { compactionForecasts } from "./forecasts.js";

/** A model whose prompts grow by 100 tokens a call (summary calls included), reading half of the one before. */
function model(failSummaries = false): LlmAdapter {
  let calls = 0;
  return {
    provider: "sim",
    async *stream(request) {
      if (failSummaries && request.messages[0]?.source === "compaction") throw new LlmError("LLM_BAD_REQUEST", "no summaries today");
      calls++;
      yield { type: "text-delta", text: `answer ${calls}` };
      yield { type: "usage", usage: { inputTokens: 100 * calls, outputTokens: 2, cacheReadTokens: 50 * (calls - 1), cacheWriteTokens: 10 } };
      yield { type: "finish", reason: "stop" };
    },
  };
}

const price = { input: 1, cacheRead: 0.1, cacheWrite5m: 1.25, output: 2, checked: "2026-12-07", source: "test" };
const prices = () => price;

/** Five turns under pressure from the second on, each forecast answered by `forecasts` in turn (then by nothing). */
async function session(forecasts: (CompactionForecast | undefined)[], options: { failSummaries?: boolean } = {}): Promise<EventLog> {
  const log = new EventLog({ registry: createAgentRegistry() });
  const forecast = async () => forecasts.shift();
  // Summaries are written by a model of their own, priced apart.
  const compaction = { contextWindow: 400, threshold: 0.5, keepRecent: 2, forecast, summaryModel: { provider: "sim", model: "sim-summary" } };
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [model(options.failSummaries)] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief.", compaction });
  for (const text of ["one", "two", "three", "four", "five"]) await agent.run(text);
  return log;
}

const cost = (usage: TokenUsage) => usageCost(usage, price).totalUsd;
/** The usage of every step after `seq`, in order. */
const stepsAfter = (log: EventLog, seq: number) => log.slice(seq + 1).flatMap((event) => (stepEndEvent.is(event) && event.data.usage !== undefined ? [event.data.usage] : []));

describe("compactionForecasts", () => {
  it("sets a forecast that chose not to compact beside the requests up to the next forecast, each plan totalled", async () => {
    const never: CompactionForecast = { plans: [{ plan: "now", summaryUsd: 0.5, requestsUsd: [0.1, 0.1, 0.1] }, { plan: "never", summaryUsd: 0, requestsUsd: [0.2, 0.25, 0.3] }], choice: "never" };
    const log = await session([never, never, never]);
    const forecasts = log.slice().filter((event) => compactionForecastEvent.is(event));
    expect(forecasts.length).toBeGreaterThan(1);
    const checks = compactionForecasts(log.slice(), prices);
    expect(checks.map((check) => check.seq)).toEqual(forecasts.map((event) => event.seq));
    const [first] = checks;
    // One request a turn, and the next turn forecasts again: each forecast covers one request.
    expect(first).toEqual({ seq: forecasts[0]!.seq, choice: "never", plans: [{ plan: "now", forecastUsd: 0.8, requests: 3 }, { plan: "never", forecastUsd: 0.75, requests: 3 }], requests: 1, forecastUsd: 0.2, actualUsd: cost(stepsAfter(log, forecasts[0]!.seq)[0]!), compacted: false });
  });

  it("counts the summary call a compaction made, and stops at the forecast's horizon", async () => {
    const now: CompactionForecast = { plans: [{ plan: "now", summaryUsd: 0.5, requestsUsd: [0.1, 0.2] }, { plan: "never", summaryUsd: 0, requestsUsd: [0.3, 0.3] }], choice: "now" };
    const log = await session([now]);
    const [check] = compactionForecasts(log.slice(), prices);
    const at = check!.seq;
    const steps = stepsAfter(log, at);
    expect(steps.length).toBeGreaterThan(2);
    // Up to the second request after the forecast: its summary calls (a later turn compacts again, unasked) and its two requests.
    const end = log.slice(at).filter((event) => stepEndEvent.is(event) && event.data.usage !== undefined)[1]!.seq;
    const summaries = log.slice(at, end).flatMap((event) => (event.type === "compaction/summary" ? [(event.data as { usage: TokenUsage }).usage] : []));
    expect(summaries.length).toBeGreaterThan(0);
    expect(check).toMatchObject({ choice: "now", compacted: true, requests: 2, forecastUsd: 0.5 + 0.1 + 0.2 });
    expect(check!.actualUsd).toBeCloseTo([...summaries, steps[0]!, steps[1]!].reduce((sum, usage) => sum + cost(usage), 0), 12);
  });

  it("says nothing of the actual cost where a price is missing", async () => {
    const now: CompactionForecast = { plans: [{ plan: "now", summaryUsd: 0.5, requestsUsd: [0.1] }], choice: "now" };
    const log = await session([now]);
    expect(compactionForecasts(log.slice(), () => undefined)[0]).toMatchObject({ compacted: true, requests: 1, actualUsd: undefined });
    // The requests priced and the summary not, or the other way round: still unknown.
    expect(compactionForecasts(log.slice(), (_provider, model) => (model === "sim-1" ? undefined : price))[0]!.actualUsd).toBeUndefined();
    expect(compactionForecasts(log.slice(), (_provider, model) => (model === "sim-summary" ? undefined : price))[0]!.actualUsd).toBeUndefined();
    expect(compactionForecasts(log.slice(), prices)[0]!.actualUsd).toBeGreaterThan(0);
    expect(compactionForecasts([], prices)).toEqual([]);
  });

  it("does not count a compaction whose summary call failed", async () => {
    const now: CompactionForecast = { plans: [{ plan: "now", summaryUsd: 0.5, requestsUsd: [0.1] }], choice: "now" };
    const log = await session([now], { failSummaries: true });
    expect(log.slice().some((event) => event.type === "compaction/end" && (event.data as { outcome: string }).outcome === "failed")).toBe(true);
    const [check] = compactionForecasts(log.slice(), prices);
    expect(check).toMatchObject({ compacted: false, requests: 1, forecastUsd: 0.1 });
    expect(check!.actualUsd).toBeCloseTo(cost(stepsAfter(log, check!.seq)[0]!), 12);
  });
});
