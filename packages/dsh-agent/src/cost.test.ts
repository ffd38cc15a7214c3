import { LlmRuntime, type ModelPrice } from "dsh-llm";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { costTotals, stepCosts } from "./cost.js";
import { createAgentRegistry } from "./register.js";
import { harness } from "./test-support/harness.js";
import { ScriptedAdapter } from "./test-support/scripted-adapter.js";

const priceA: ModelPrice = { input: 2, cacheRead: 0.2, output: 10, checked: "2026-12-04", source: "test" };
const peaked: ModelPrice = { ...priceA, peak: { factor: 3, hoursUtc: [{ from: 0, to: 24 }], weekdaysOnly: false } };

/** A harness whose adapter prices `model-a` (and `model-p`, at a peak all day), but not `model-b`. */
function priced(script: ConstructorParameters<typeof ScriptedAdapter>[0], clock?: () => number) {
  const adapter = new ScriptedAdapter(script);
  const runtime = new LlmRuntime({
    adapters: [
      {
        provider: adapter.provider,
        // Each answer reports 5 cached and 7 written prompt tokens, so the totals add those up too.
        stream: async function* (request) {
          for await (const chunk of adapter.stream(request)) yield chunk.type === "usage" ? { ...chunk, usage: { ...chunk.usage, cacheReadTokens: 5, cacheWriteTokens: 7 } } : chunk;
        },
        modelDefaults: () => adapter.modelDefaults(),
        price: (model) => (model === "model-a" ? priceA : model === "model-p" ? peaked : undefined),
      },
    ],
  });
  const log = new EventLog({ registry: createAgentRegistry(), ...(clock === undefined ? {} : { clock }) });
  return harness(script, { runtime, log });
}

describe("the cost of a turn and of a session", () => {
  it("prices each step at its own model's price, counts unpriced steps' tokens, and adds them up", async () => {
    const { agent, log } = priced((_request, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"a"}' }] } : { text: "done" }));
    const first = await agent.run("go");
    expect(first.cost.steps.map(({ turn, step, model }) => `${turn}.${step} ${model}`)).toEqual(["0.0 model-a", "0.1 model-a"]);
    const [one, two] = first.cost.steps;
    expect(one!.cost!.inputUsd).toBeCloseTo(((one!.usage.inputTokens - 12) * 2) / 1e6, 12);
    expect(one!.cost!.cacheReadUsd).toBeCloseTo((5 * 0.2) / 1e6, 12);
    expect(one!.cost!.outputUsd).toBeCloseTo(10 / 1e6, 12);
    expect(first.cost.totals).toMatchObject({ inputTokens: first.usage.inputTokens, outputTokens: 2, cacheReadTokens: 10, cacheWriteTokens: 14, unpricedSteps: 0 });
    expect(first.usage).toMatchObject({ cacheReadTokens: 10, cacheWriteTokens: 14 });
    expect(first.cost.totals.cost.totalUsd).toBeCloseTo(one!.cost!.totalUsd + two!.cost!.totalUsd, 12);

    agent.reconfigure({ provider: "scripted", model: "model-b" });
    const second = await agent.run("again");
    expect(second.cost.steps).toHaveLength(1);
    expect(second.cost.steps[0]).toMatchObject({ turn: 1, step: 0, model: "model-b", cost: undefined });
    expect(second.cost.totals).toMatchObject({ unpricedSteps: 1, inputTokens: second.usage.inputTokens });
    expect(second.cost.totals.cost.totalUsd).toBe(0);

    // The session: both turns, the same fold over the whole log.
    const session = agent.cost();
    expect(session.steps).toEqual([...first.cost.steps, ...second.cost.steps]);
    expect(session.totals.inputTokens).toBe(first.usage.inputTokens + second.usage.inputTokens);
    expect(session.totals.cost.totalUsd).toBeCloseTo(first.cost.totals.cost.totalUsd, 12);
    expect(stepCosts(log.slice(), () => undefined).every((step) => step.cost === undefined)).toBe(true);
  });

  it("prices a step at the time it was dispatched, peak hours included", async () => {
    const { agent } = priced(() => ({ text: "x" }), () => Date.parse("2026-12-04T12:00:00Z"));
    agent.reconfigure({ provider: "scripted", model: "model-p" });
    const result = await agent.run("hi");
    const step = result.cost.steps[0]!;
    expect(step.time).toBe(Date.parse("2026-12-04T12:00:00Z"));
    expect(step.cost!.totalUsd).toBeCloseTo(3 * (((step.usage.inputTokens - 5) * 2 + 5 * 0.2 + 10) / 1e6), 12);
  });

  it("skips a step whose dispatch is not in the events given (a slice that starts inside it)", async () => {
    const { agent, log } = priced(() => ({ text: "x" }));
    await agent.run("hi");
    const events = log.slice();
    const dispatch = events.findIndex((event) => event.type === "request/dispatch");
    expect(stepCosts(events, () => priceA)).toHaveLength(1);
    expect(stepCosts(events.slice(dispatch + 1), () => priceA)).toEqual([]);
  });

  it("counts nothing for steps without usage, and totals nothing to zero", () => {
    expect(costTotals([])).toMatchObject({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, unpricedSteps: 0, cost: { totalUsd: 0 } });
    expect(stepCosts([], () => priceA)).toEqual([]);
  });
});
