import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import type { CompactionForecast, CompactionForecaster, CompactionForecastInput } from "./compaction.js";
import { compactionForecastEvent, compactionStartEvent } from "./events.js";
import { createAgentRegistry } from "./register.js";
import { harness } from "./test-support/harness.js";

/** A forecast that chose `choice` (with the cache's lifetime on the plan that needs one). */
const forecastOf = (choice: CompactionForecast["choice"], idleMs = 60_000): CompactionForecast => ({
  plans: [
    { plan: "now", summaryUsd: 0.5, requestsUsd: [0.1, 0.1] },
    { plan: "at-expiry", summaryUsd: 0.5, requestsUsd: [0.2, 0.1], idleMs },
    { plan: "never", summaryUsd: 0, requestsUsd: [0.3, 0.3] },
  ],
  choice,
});

/** A session under pressure from its second turn on, whose clock the test moves; `forecast` is asked under pressure. */
function session(forecast: CompactionForecaster, extra: { forceAt?: number } = {}) {
  let now = 1_000_000;
  const log = new EventLog({ registry: createAgentRegistry(), clock: () => now });
  const asked: CompactionForecastInput[] = [];
  const { agent } = harness(
    (request) => {
      if (request.messages[0]?.source === "compaction") return { text: "They talked about numbers." };
      // Each turn calls the tool, then answers: two steps, with pressure checked before each.
      return request.messages.at(-1)?.role === "user" ? { toolCalls: [{ name: "echo", arguments: '{"text":"x"}' }] } : { text: `answer ${request.messages.length}` };
    },
    {
      log,
      compaction: {
        // Pressure from 400 tokens, compaction forced only past 3,800.
        contextWindow: 4000,
        threshold: 0.1,
        keepRecent: 2,
        ...extra,
        forecast: async (input) => {
          asked.push(input);
          return forecast(input);
        },
      },
    },
  );
  return { agent, log, asked, wait: (ms: number) => void (now += ms) };
}

const ofType = (log: EventLog, type: string) => log.slice().filter((event) => event.type === type);

describe("a compaction forecast", () => {
  it("is asked once per turn under pressure and logged before the agent acts on it; 'never' compacts nothing", async () => {
    const { agent, log, asked } = session(async () => forecastOf("never"));
    for (const prompt of ["one", "two", "three", "four"]) await agent.run(prompt);
    const forecasts = ofType(log, "compaction/forecast");
    expect(forecasts.length).toBeGreaterThan(0);
    expect(asked).toHaveLength(forecasts.length);
    expect(ofType(log, "compaction/start")).toEqual([]);
    // Asked at most once a turn, though each turn has two steps under pressure.
    const turns = forecasts.map((event) => log.slice(0, event.seq).filter((e) => e.type === "turn/start").length);
    expect(new Set(turns).size).toBe(turns.length);
    expect(log.slice(forecasts[0]!.seq).filter((event) => event.type === "step/start").length).toBeGreaterThan(forecasts.length);
    const { data } = forecasts[0]!;
    expect(data).toEqual({ ...forecastOf("never"), measuredTokens: asked[0]!.measuredTokens, range: expect.objectContaining({ start: expect.any(Number), end: expect.any(Number) }) });
    expect(asked[0]).toMatchObject({ contextWindow: 4000, summaryMaxTokens: 1024, range: { startIndex: 1 } });
    expect(asked[0]!.measuredTokens).toBeGreaterThanOrEqual(400);
    expect(asked[0]!.messages[asked[0]!.range.endIndex]).toBeDefined();
  });

  it("compacts at once when it chose 'now', right after the logged forecast", async () => {
    const { agent, log } = session(async () => forecastOf("now"));
    for (const prompt of ["one", "two", "three", "four"]) await agent.run(prompt);
    const forecast = ofType(log, "compaction/forecast")[0]!;
    expect(compactionForecastEvent.is(forecast)).toBe(true);
    expect(log.get(forecast.seq + 1)).toMatchObject({ type: "compaction/start", data: { reason: "threshold", range: (forecast.data as { range: object }).range } });
  });

  it("with 'at-expiry', compacts before the first step after a logged pause as long as the cache's lifetime", async () => {
    const { agent, log, wait } = session(async () => forecastOf("at-expiry", 60_000));
    for (const prompt of ["one", "two", "three", "four"]) {
      await agent.run(prompt);
      wait(1_000);
    }
    // Decided, not yet acted on: the pauses were a second.
    expect(ofType(log, "compaction/forecast").length).toBeGreaterThan(1);
    expect(ofType(log, "compaction/start")).toEqual([]);
    // A pause of exactly the cache's lifetime since the last step ended.
    wait(59_000);
    await agent.run("after lunch");
    const [start] = ofType(log, "compaction/start");
    expect(start).toMatchObject({ data: { reason: "cache-expired" } });
    expect(log.get(start!.seq - 1)!.type).toBe("compaction/forecast");
  });

  it("is overruled past forceAt of the window, and compacting at the threshold goes on when it gives no forecast", async () => {
    const forced = session(async () => forecastOf("never"), { forceAt: 0.1 });
    for (const prompt of ["one", "two", "three", "four"]) await forced.agent.run(prompt);
    expect(forced.asked).toEqual([]);
    expect(compactionStartEvent.is(ofType(forced.log, "compaction/start")[0]!)).toBe(true);

    const silent = session(async () => undefined);
    for (const prompt of ["one", "two", "three", "four"]) await silent.agent.run(prompt);
    expect(silent.asked.length).toBeGreaterThan(0);
    expect(ofType(silent.log, "compaction/forecast")).toEqual([]);
    expect(ofType(silent.log, "compaction/start")[0]).toMatchObject({ data: { reason: "threshold" } });
  });

  it("is refused by the log when it names no plan", () => {
    expect(compactionForecastEvent.schema.safeParse({ measuredTokens: 1, range: { start: 1, end: 2 }, plans: [], choice: "now" }).success).toBe(false);
  });
});
