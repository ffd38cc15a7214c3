import { describe, expect, it } from "vitest";
import type { CacheRow } from "./cache-report.js";
import { CacheSummary } from "./summary.js";

function row(fields: Partial<CacheRow>): CacheRow {
  return { turn: 0, step: 0, promptTokens: 100, stableTokens: 0, cacheReadTokens: undefined, cacheWriteTokens: undefined, reportedPromptTokens: undefined, isBreak: false, explanations: [], misses: [], ...fields };
}

const verdict = (agreement: "agree" | "disagree" | "provider-only" | "no-verdict") => ({ agreement }) as unknown as NonNullable<CacheRow["provider"]>;

describe("CacheSummary", () => {
  it("has no shares before two requests, nor a cache-read share without reported usage", () => {
    const summary = new CacheSummary();
    expect(summary.figures()).toEqual({ requests: 0, breaks: 0, unexplained: 0, misses: 0, repeatedShare: null, cacheReadShare: null, reportedRequests: 0, verdicts: { agree: 0, disagree: 0, "provider-only": 0, "no-verdict": 0 } });
    summary.add(row({ promptTokens: 50, stableTokens: 0 }));
    expect(summary.figures()).toMatchObject({ requests: 1, repeatedShare: null, cacheReadShare: null });
  });

  it("counts the repeated share after the first request and the cache-read share over the requests that reported usage", () => {
    const summary = new CacheSummary();
    summary.add(row({ promptTokens: 1000, stableTokens: 0, reportedPromptTokens: 1200, cacheReadTokens: 0 }));
    summary.add(row({ promptTokens: 200, stableTokens: 150 }));
    summary.add(row({ promptTokens: 300, stableTokens: 0, reportedPromptTokens: 800, cacheReadTokens: 500 }));
    summary.add(row({ promptTokens: 500, stableTokens: 250, reportedPromptTokens: 0 }));
    const figures = summary.figures();
    expect(figures.repeatedShare).toBe(400 / 1000);
    expect(figures.cacheReadShare).toBe(500 / 2000);
    expect(figures.reportedRequests).toBe(3);
  });

  it("has a repeated share from the second request on, and none while the later prompts are empty", () => {
    const two = new CacheSummary();
    two.add(row({ promptTokens: 100 }));
    two.add(row({ promptTokens: 80, stableTokens: 60 }));
    expect(two.figures().repeatedShare).toBe(0.75);
    const empty = new CacheSummary();
    empty.add(row({ promptTokens: 100 }));
    empty.add(row({ promptTokens: 0, stableTokens: 0 }));
    expect(empty.figures().repeatedShare).toBeNull();
  });

  it("counts breaks, the unexplained ones apart, misses and the provider's verdicts", () => {
    const summary = new CacheSummary();
    summary.add(row({ isBreak: true, explanations: ["the system prompt changed (seq 4)"], provider: verdict("agree") }));
    summary.add(row({ isBreak: true, explanations: ["settings changed (seq 9)"] }));
    summary.add(row({ isBreak: true, explanations: [], misses: ["a 6-minute gap"], provider: verdict("provider-only") }));
    summary.add(row({ misses: ["under the minimum"], provider: verdict("provider-only") }));
    summary.add(row({ provider: verdict("disagree") }));
    summary.add(row({ provider: verdict("no-verdict") }));
    expect(summary.figures()).toMatchObject({ requests: 6, breaks: 3, unexplained: 1, misses: 2, verdicts: { agree: 1, disagree: 1, "provider-only": 2, "no-verdict": 1 } });
  });

  it("hands out figures that later rows do not change", () => {
    const summary = new CacheSummary();
    summary.add(row({ provider: verdict("agree") }));
    const before = summary.figures();
    summary.add(row({ provider: verdict("agree") }));
    expect(before.verdicts.agree).toBe(1);
  });
});
