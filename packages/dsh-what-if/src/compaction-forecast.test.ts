import { Agent, compactionForecastEvent, createAgentRegistry } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { compactionForecasts } from "dsh-cost-report";
import { LlmRuntime, type ModelPrice } from "dsh-llm";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { compactionForecast, sessionPace } from "./compaction-forecast.js";
import { cheapestPlan, planTotal } from "./forecast-plans.js";

const price: ModelPrice = { input: 3, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6, output: 15, checked: "2026-12-07", source: "test" };

/** Six turns on the simulated Messages API, each adding a long message, with the forecast deciding compactions from the threshold on. */
async function forecastSession(turns: number, cacheTtl?: "1h") {
  const sim = await startSimulator({ scenario: { responses: Array.from({ length: 20 }, (_, i) => ({ text: `Noted, part ${i}.` })) } });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    const forecast = compactionForecast({ prices: () => price, turns });
    const agent = new Agent({
      log,
      runtime: new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-test" })] }),
      config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 256, ...(cacheTtl === undefined ? {} : { cacheTtl }) },
      systemPrompt: "Check every answer twice before you give it. ".repeat(150),
      compaction: { contextWindow: 6000, threshold: 0.5, keepRecent: 2, summaryMaxTokens: 200, forecast },
    });
    for (let i = 0; i < 6; i++) await agent.run(`Part ${i} of the notes: ${"a long line of notes to keep. ".repeat(60)}`);
    return log;
  } finally {
    await sim.close();
  }
}

describe("compactionForecast", () => {
  it("prices compacting now against not at all from the session's logged pace, logs the cheaper, and dsh-cost-report sets it beside what followed", async () => {
    const log = await forecastSession(1);
    const forecasts = log.slice().filter((event) => compactionForecastEvent.is(event));
    expect(forecasts.length).toBeGreaterThan(0);
    for (const { data } of forecasts) {
      // The turns are seconds apart, well inside the cache's five minutes: no turn starts cold, so no plan waits for the expiry.
      expect(data.plans.map((plan) => plan.plan)).toEqual(["now", "never"]);
      expect(data.choice).toBe(cheapestPlan(data.plans));
      expect(data.plans[0]!.summaryUsd).toBeGreaterThan(0);
      // One turn ahead at one request a turn.
      expect(data.plans.map((plan) => plan.requestsUsd.length)).toEqual([1, 1]);
    }
    // Over one turn, rewriting the prompt costs more than the smaller requests save: the forecast keeps the prefix.
    expect(forecasts[0]!.data.choice).toBe("never");
    const checks = compactionForecasts(log.slice(), () => price);
    expect(checks.map((check) => check.seq)).toEqual(forecasts.map((event) => event.seq));
    const first = checks[0]!;
    expect(first).toMatchObject({ choice: "never", compacted: false, requests: 1 });
    expect(first.plans.map((plan) => plan.forecastUsd)).toEqual(forecasts[0]!.data.plans.map(planTotal));
    expect(first.actualUsd).toBeGreaterThan(0);
    // The pace carried forward is the session's own: its forecast of the next request is within a tenth of what it cost.
    expect(Math.abs(first.forecastUsd - first.actualUsd!) / first.actualUsd!).toBeLessThan(0.1);
  });

  it("compacts now when the horizon repays the summary call, and prices the summary call it made", async () => {
    const log = await forecastSession(40);
    const checks = compactionForecasts(log.slice(), () => price);
    expect(checks[0]).toMatchObject({ choice: "now", compacted: true });
    expect(checks[0]!.actualUsd).toBeGreaterThan(0);
    const summary = log.slice().find((event) => event.type === "compaction/summary")!;
    expect(summary.data).toMatchObject({ usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) } });
  });

  it("forecasts nothing without a request logged or a price, so the agent compacts at the threshold as before", async () => {
    const forecast = compactionForecast({ prices: () => price });
    const input = { measuredTokens: 10, contextWindow: 100, messages: [], range: { startIndex: 1, endIndex: 2 }, summaryMaxTokens: 10 };
    expect(await forecast({ ...input, log: new EventLog({ registry: createAgentRegistry() }) })).toBeUndefined();
    const log = await forecastSession(1);
    expect(await compactionForecast({ prices: () => undefined })({ ...input, log })).toBeUndefined();
    // With both, four turns ahead by default.
    expect((await forecast({ ...input, log }))!.plans[0]!.requestsUsd).toHaveLength(4);
  });

  it("prices writes at the lifetime the session asked for: an hour's rate only for an hour's cache", async () => {
    const input = { measuredTokens: 10, contextWindow: 100_000, messages: [], range: { startIndex: 1, endIndex: 2 }, summaryMaxTokens: 10 };
    const dearHour = { ...price, cacheWrite1h: 600 };
    const plans = async (log: EventLog, at: ModelPrice) => (await compactionForecast({ prices: () => at })({ ...input, log }))!.plans;
    const fiveMinutes = await forecastSession(1);
    expect(await plans(fiveMinutes, dearHour)).toEqual(await plans(fiveMinutes, price));
    const hour = await forecastSession(1, "1h");
    const [cheap, dear] = [await plans(hour, price), await plans(hour, dearHour)];
    expect(dear.find((plan) => plan.plan === "never")!.requestsUsd[0]).toBeGreaterThan(cheap.find((plan) => plan.plan === "never")!.requestsUsd[0]! * 10);
  });

  it("measures the pace from logged usage: the latest prompt, the growth and output per request, the requests per turn", async () => {
    const log = await forecastSession(1);
    const pace = sessionPace(log, 8, 300_000)!;
    const usages = log.slice().flatMap((event) => (event.type === "step/end" && (event.data as { usage?: { inputTokens: number } }).usage !== undefined ? [(event.data as { usage: { inputTokens: number } }).usage] : []));
    expect(pace).toMatchObject({ promptTokens: usages.at(-1)!.inputTokens, requestsPerTurn: 1, requestsBeforeTurn: 0, coldTurnStarts: false });
    expect(pace.growthPerRequest).toBeGreaterThan(300);
    expect(pace.outputPerRequest).toBeGreaterThan(0);
    expect(sessionPace(new EventLog({ registry: createAgentRegistry() }), 8, undefined)).toBeUndefined();
  });
});
