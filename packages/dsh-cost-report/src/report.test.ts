import { Agent, createAgentRegistry, stepCosts } from "dsh-agent";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { costReport } from "./report.js";

/** A model that answers with `usage` growing by 100 prompt tokens a request. */
function model(): LlmAdapter {
  let calls = 0;
  return {
    provider: "sim",
    async *stream() {
      calls++;
      yield { type: "text-delta", text: "ok" };
      yield { type: "usage", usage: { inputTokens: 100 * calls, outputTokens: calls, cacheReadTokens: 50 * (calls - 1), cacheWriteTokens: 0 } };
      yield { type: "finish", reason: "stop" };
    },
  };
}

async function session(): Promise<EventLog> {
  const log = new EventLog({ registry: createAgentRegistry() });
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [model()] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: "Be brief." });
  for (const text of ["one", "two", "three"]) await agent.run(text);
  return log;
}

const price = { input: 1, cacheRead: 0.1, output: 2, checked: "2026-12-07", source: "test" };

describe("costReport", () => {
  it("adds the steps up per turn and in all, without events unless asked, and prices nothing without prices", async () => {
    const log = await session();
    const report = costReport(log);
    expect(report.steps).toEqual(stepCosts(log, () => undefined));
    expect(report.turns.map(({ turn, inputTokens, outputTokens, unpricedSteps }) => [turn, inputTokens, outputTokens, unpricedSteps])).toEqual([
      [0, 100, 1, 1],
      [1, 200, 2, 1],
      [2, 300, 3, 1],
    ]);
    expect(report.total).toMatchObject({ inputTokens: 600, outputTokens: 6, cacheReadTokens: 150, unpricedSteps: 3 });
    expect(report.total.cost.totalUsd).toBe(0);
    expect(report).not.toHaveProperty("events");
    expect(costReport(log, { byEvent: false })).not.toHaveProperty("events");
  });

  it("prices every step at the given prices, and with byEvent shares the same dollars out over the events", async () => {
    const log = await session();
    const report = costReport(log, { prices: () => price, byEvent: true });
    // Uncached 100 + 150 + 200 at $1, reads 0 + 50 + 100 at $0.1, outputs 1 + 2 + 3 at $2, per million.
    expect(report.total.cost.totalUsd).toBeCloseTo((450 + 15 + 12) / 1e6, 15);
    expect(report.turns.map((turn) => turn.cost.totalUsd)).toEqual(report.steps.map((step) => step.cost!.totalUsd));
    expect(report.events!.reduce((sum, event) => sum + event.cost.totalUsd, 0)).toBeCloseTo(report.total.cost.totalUsd, 15);
    expect(report.events!.map((event) => event.label)).toEqual(["system prompt", "user", "assistant", "user", "assistant", "user", "assistant"]);
  });
});
