import { describe, expect, it } from "vitest";
import { cheapestPlan, planTotal, pricePlans, type SessionPace } from "./forecast-plans.js";

// Whole-number rates keep the arithmetic exact: a read costs a tenth of an uncached token, a write a quarter more.
const rates = { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 5 };
const shape = { prefixTokens: 100, rangeTokens: 800, summaryTokens: 50 };
const warm: SessionPace = { promptTokens: 1000, growthPerRequest: 100, outputPerRequest: 10, requestsPerTurn: 2, requestsBeforeTurn: 1, coldTurnStarts: false };
const plan = (plans: ReturnType<typeof pricePlans>, name: string) => plans.find((p) => p.plan === name);

describe("pricePlans", () => {
  it("prices each request as the warm prefix read, the rest written, the output; compacting now pays the summary call up front", () => {
    const plans = pricePlans(warm, shape, rates, { requests: 2, contextWindow: 1e9 });
    expect(plans.map((p) => p.plan)).toEqual(["now", "never"]);
    // Never: 1,100 tokens reading 1,000 and writing 100, then 1,200 reading 1,100.
    expect(plan(plans, "never")).toEqual({ plan: "never", summaryUsd: 0, requestsUsd: [100 + 125 + 50, 110 + 125 + 50] });
    // Now: the 800-token range read fresh and 50 summary tokens written out; the prompt drops to 250 with only its 100-token prefix still cached.
    expect(plan(plans, "now")).toEqual({ plan: "now", summaryUsd: 800 + 250, requestsUsd: [10 + 250 * 1.25 + 50, 35 + 125 + 50] });
    expect(cheapestPlan(plans)).toBe("never");
    expect(planTotal(plan(plans, "now")!)).toBe(1050 + 372.5 + 210);
  });

  it("chooses to compact now once the horizon is long enough for the smaller prompts to repay the summary call", () => {
    const expensiveReads = { ...rates, cacheRead: 0.5 };
    expect(cheapestPlan(pricePlans(warm, shape, expensiveReads, { requests: 3, contextWindow: 1e9 }))).toBe("never");
    expect(cheapestPlan(pricePlans(warm, shape, expensiveReads, { requests: 40, contextWindow: 1e9 }))).toBe("now");
  });

  it("compacts where the window would overflow, counting that summary call in the request it precedes", () => {
    const never = plan(pricePlans(warm, shape, rates, { requests: 2, contextWindow: 1150 }), "never")!;
    expect(never.requestsUsd).toEqual([275, 1050 + 10 + 350 * 1.25 + 50]);
    // The next prompt and its answer must fit: 1,100 + 100 + 10 overflows 1,200 tokens, not 1,210.
    expect(plan(pricePlans(warm, shape, rates, { requests: 2, contextWindow: 1200 }), "never")!.requestsUsd[1]).toBe(1050 + 10 + 350 * 1.25 + 50);
    expect(plan(pricePlans(warm, shape, rates, { requests: 2, contextWindow: 1210 }), "never")!.requestsUsd[1]).toBe(285);
    // The summary call reads the range at the input rate.
    expect(plan(pricePlans(warm, shape, { ...rates, input: 2 }, { requests: 1, contextWindow: 1e9 }), "now")!.summaryUsd).toBe(800 * 2 + 50 * 5);
  });

  it("offers compacting at the next turn start when turns start cold, the pause outlasting the cache", () => {
    const cold = { ...warm, coldTurnStarts: true };
    const plans = pricePlans(cold, shape, rates, { requests: 3, contextWindow: 1e9, idleMs: 300_000 });
    expect(plans.map((p) => p.plan)).toEqual(["now", "at-expiry", "never"]);
    // Never: the second request starts a turn cold and writes its whole prompt.
    expect(plan(plans, "never")!.requestsUsd).toEqual([275, 1200 * 1.25 + 50, 120 + 125 + 50]);
    expect(plan(plans, "at-expiry")).toEqual({ plan: "at-expiry", summaryUsd: 1050, requestsUsd: [275, 450 * 1.25 + 50, 45 + 125 + 50], idleMs: 300_000 });
    expect(plan(plans, "now")!.requestsUsd).toEqual([372.5, 450 * 1.25 + 50, 45 + 125 + 50]);
    expect(cheapestPlan(plans)).toBe("never");
    // Turns start every `requestsPerTurn` requests from the first turn start, and never before it.
    const later = pricePlans({ ...cold, requestsBeforeTurn: 2 }, shape, rates, { requests: 5, contextWindow: 1e9 });
    const cost = (prompt: number, read: number) => read * 0.1 + (prompt - read) * 1.25 + 50;
    expect(plan(later, "never")!.requestsUsd).toEqual([cost(1100, 1000), cost(1200, 1100), cost(1300, 0), cost(1400, 1300), cost(1500, 0)]);
    // Not offered while the cache outlives the pause, nor when the next request starts the turn (now is then at expiry), nor past the horizon.
    expect(pricePlans(warm, shape, rates, { requests: 3, contextWindow: 1e9, idleMs: 300_000 }).map((p) => p.plan)).toEqual(["now", "never"]);
    expect(pricePlans({ ...cold, requestsBeforeTurn: 0 }, shape, rates, { requests: 3, contextWindow: 1e9, idleMs: 300_000 }).map((p) => p.plan)).toEqual(["now", "never"]);
    expect(pricePlans({ ...cold, requestsBeforeTurn: 3 }, shape, rates, { requests: 3, contextWindow: 1e9, idleMs: 300_000 }).map((p) => p.plan)).toEqual(["now", "never"]);
    expect(pricePlans(cold, shape, rates, { requests: 3, contextWindow: 1e9 }).map((p) => p.plan)).toEqual(["now", "never"]);
  });

  it("breaks a tie toward the least disruptive plan", () => {
    const free = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
    expect(cheapestPlan(pricePlans({ ...warm, coldTurnStarts: true }, shape, free, { requests: 3, contextWindow: 1e9, idleMs: 1 }))).toBe("never");
    expect(cheapestPlan([{ plan: "now", summaryUsd: 0, requestsUsd: [1] }, { plan: "at-expiry", summaryUsd: 0, requestsUsd: [1] }])).toBe("at-expiry");
  });
});
