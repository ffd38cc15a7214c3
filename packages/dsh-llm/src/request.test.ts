import { describe, expect, it } from "vitest";
import type { LlmCallConfig } from "./config.js";
import { freezeRequest, isAgentLoopRequest, markAgentLoopRequest, type GenerateOptions } from "./request.js";

const config: LlmCallConfig = { provider: "test", model: "m" };
function request(): GenerateOptions {
  return {
    config,
    messages: [
      { role: "system", content: "  ", source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "hi" }], source: "user" },
    ],
  };
}

describe("freezeRequest", () => {
  it("deep-freezes a valid request in place", () => {
    const options = request();
    const frozen = freezeRequest(options);
    expect(frozen).toBe(options);
    expect(() => {
      (frozen.messages as unknown[]).push({});
    }).toThrow(TypeError);
    expect(() => {
      (frozen.config as { model: string }).model = "other";
    }).toThrow(TypeError);
  });

  it.each([
    ["an unknown key", { ...request(), extra: 1 }, /unknown key extra/],
    ["no messages", { ...request(), messages: [] }, /messages must be a non-empty array/],
    ["a bad message", { ...request(), messages: [{ role: "user", content: [], source: "user" }] }, /messages\[0\]/],
    ["an empty tool list", { ...request(), tools: [] }, /tools/],
    ["an undefined config field", { ...request(), config: { ...config, maxTokens: undefined } }, /config/],
    ["a non-signal", { ...request(), signal: {} }, /AbortSignal/],
  ])("rejects %s with LLM_INVALID_REQUEST", (_what, options, message) => {
    expect(() => freezeRequest(options as GenerateOptions)).toThrowError(message);
    expect(() => freezeRequest(options as GenerateOptions)).toThrowError(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST" }),
    );
  });
});

describe("markAgentLoopRequest", () => {
  it("marks exactly the frozen object, never an equal copy", () => {
    const frozen = markAgentLoopRequest(freezeRequest(request()));
    expect(isAgentLoopRequest(frozen)).toBe(true);
    expect(isAgentLoopRequest(freezeRequest(structuredClone(request())))).toBe(false);
    expect(isAgentLoopRequest({ ...frozen })).toBe(false);
  });

  it("refuses a request that is not deep-frozen", () => {
    expect(() => markAgentLoopRequest(request())).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST" }));
    const shallow = Object.freeze(request());
    expect(() => markAgentLoopRequest(shallow)).toThrowError(/deep-frozen/);
  });
});
