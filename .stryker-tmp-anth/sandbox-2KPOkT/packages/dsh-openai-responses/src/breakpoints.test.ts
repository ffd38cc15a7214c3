import type { Message } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { MAX_EXPLICIT_BREAKPOINTS, breakpointsFor, rollingResponsesPolicy } from "./breakpoints.js";

const system: Message = { role: "system", content: "s", source: "system-prompt" };
const user: Message = { role: "user", content: [{ type: "text", text: "u" }], source: "user" };
const answer: Message = { role: "assistant", content: [{ type: "tool-call", callId: "c", name: "t", arguments: "{}" }], source: "model" };
const result: Message = { role: "tool", callId: "c", toolName: "t", content: [], isError: false, source: "tool" };

describe("rolling-v1 on the Responses API", () => {
  it("marks the system prompt, the end of the previous request and the last message, at most three", () => {
    expect(rollingResponsesPolicy([system, user])).toEqual([0, 1]);
    expect(rollingResponsesPolicy([system, user, answer, result])).toEqual([0, 1, 3]);
    expect(rollingResponsesPolicy([system, user, answer, result, answer, result])).toEqual([0, 3, 5]);
    expect(rollingResponsesPolicy([user, answer, result, answer, result])).toEqual([2, 4]);
    expect(MAX_EXPLICIT_BREAKPOINTS).toBe(3);
  });

  it("marks the first message when it ended the previous request, and nothing in an empty list", () => {
    expect(rollingResponsesPolicy([user, answer, user])).toEqual([0, 2]);
    expect(rollingResponsesPolicy([])).toEqual([]);
  });

  it("never marks an answer: the nearest message before it that can carry a mark is taken", () => {
    expect(rollingResponsesPolicy([system, user, answer, answer, result])).toEqual([0, 1, 4]);
    expect(rollingResponsesPolicy([system, user, answer])).toEqual([0, 1]);
    expect(rollingResponsesPolicy([answer, answer])).toEqual([]);
  });
});

describe("breakpointsFor", () => {
  it("marks nothing without a policy, and refuses an unknown one or one the model cannot take", () => {
    expect([...breakpointsFor([system, user], undefined, true, "m")]).toEqual([]);
    expect([...breakpointsFor([system, user], "none", false, "m")]).toEqual([]);
    expect([...breakpointsFor([system, user], "rolling-v1", true, "m")]).toEqual([0, 1]);
    expect(() => breakpointsFor([user], "rolling-v1", false, "gpt-5.5")).toThrow(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "gpt-5.5 takes no explicit cache breakpoints (GPT-5.6 and later do): leave config.cachePolicy unset" }),
    );
    expect(() => breakpointsFor([user], "toString", true, "m")).toThrow(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "unknown cache policy toString: choose rolling-v1 or none" }));
  });
});
