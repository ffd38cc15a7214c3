import { describe, expect, it } from "vitest";
import { describeVerdict, providerVerdict, type LoggedCause } from "./provider-verdict.js";

const causes = (...list: LoggedCause[]) => new Set(list);

describe("providerVerdict", () => {
  it("agrees when the provider's reason is one a logged cause explains, in that API's words", () => {
    expect(providerVerdict({ verdict: "miss", reason: "system_changed" }, causes("system-prompt"), "messages").agreement).toBe("agree");
    expect(providerVerdict({ verdict: "miss", reason: "input_changed" }, causes("system-prompt"), "responses").agreement).toBe("agree");
    expect(providerVerdict({ verdict: "miss", reason: "context_compacted" }, causes("messages"), "responses").agreement).toBe("agree");
    expect(providerVerdict({ verdict: "miss", reason: "reasoning_effort_changed" }, causes("effort", "tools"), "responses").agreement).toBe("agree");
    expect(providerVerdict({ verdict: "hit" }, causes(), "messages").agreement).toBe("agree");
  });

  it("disagrees on a reason no logged cause explains, or a hit over a logged cause", () => {
    expect(providerVerdict({ verdict: "miss", reason: "tools_changed" }, causes("system-prompt"), "messages").agreement).toBe("disagree");
    expect(providerVerdict({ verdict: "miss", reason: "system_changed" }, causes("system-prompt"), "responses").agreement).toBe("disagree");
    expect(providerVerdict({ verdict: "hit" }, causes("model"), "messages").agreement).toBe("disagree");
    // A cause the API does not diagnose (Anthropic has no cache key) is no disagreement with a hit.
    expect(providerVerdict({ verdict: "hit" }, causes("cache-key"), "messages").agreement).toBe("agree");
  });

  it("calls a miss with nothing logged provider-only, and a missing verdict no verdict", () => {
    expect(providerVerdict({ verdict: "miss", reason: "messages_changed", missedTokens: 9 }, causes(), "messages")).toEqual({ verdict: "miss", reason: "messages_changed", missedTokens: 9, agreement: "provider-only" });
    for (const verdict of ["not-found", "unavailable", "pending"] as const) expect(providerVerdict({ verdict }, causes("model"), "responses").agreement).toBe("no-verdict");
  });

  it("says it in a reader's words", () => {
    expect(describeVerdict({ verdict: "miss", reason: "model_changed", missedTokens: 560, agreement: "agree" })).toBe("provider: miss (model_changed, 560 tokens), agrees with the log");
    expect(describeVerdict({ verdict: "miss", agreement: "provider-only" })).toBe("provider: miss (no reason), no logged cause: a provider-side eviction, or a bug in one of the two");
    expect(describeVerdict({ verdict: "hit", agreement: "disagree" })).toBe("provider: hit, DISAGREES with the log");
    expect(describeVerdict({ verdict: "not-found", agreement: "no-verdict" })).toBe("provider: not-found, no verdict to compare");
  });
});
