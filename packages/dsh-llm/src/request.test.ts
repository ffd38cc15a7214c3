import { describe, expect, it } from "vitest";
import type { LlmCallConfig } from "./config.js";
import { deepFreeze } from "./freeze.js";
import { RequestFreezer, freezeRequest, isAgentLoopRequest, markAgentLoopRequest, requestMemo, type GenerateOptions } from "./request.js";

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
    ["an unknown key", { ...request(), extra: 1 }, /^invalid request: unknown key extra$/],
    ["no messages", { ...request(), messages: [] }, /^invalid request: messages must be a non-empty array$/],
    ["messages that are not an array", { ...request(), messages: "hi" }, /^invalid request: messages must be a non-empty array$/],
    ["a bad message", { ...request(), messages: [request().messages[0], { role: "user", content: [], source: "user" }] }, /^invalid request messages\[1\]: content: Too small/],
    ["an empty tool list", { ...request(), tools: [] }, /^invalid request tools: Too small/],
    ["an undefined tool list", { ...request(), tools: undefined }, /^invalid request tools: /],
    ["an undefined config field", { ...request(), config: { ...config, maxTokens: undefined } }, /^invalid request config: maxTokens: /],
    ["a non-signal", { ...request(), signal: {} }, /^invalid request: signal must be an AbortSignal$/],
    ["an undefined signal", { ...request(), signal: undefined }, /^invalid request: signal must be an AbortSignal$/],
  ])("rejects %s with LLM_INVALID_REQUEST", (_what, options, message) => {
    expect(() => freezeRequest(options as GenerateOptions)).toThrowError(message);
    expect(() => freezeRequest(options as GenerateOptions)).toThrowError(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST" }),
    );
  });
});

describe("freezeRequest and the previous answer's id", () => {
  it("keeps a non-empty id, frozen with the request, and refuses anything else", () => {
    const frozen = freezeRequest({ ...request(), previousResponseId: "resp_1" });
    expect(frozen.previousResponseId).toBe("resp_1");
    expect(Object.isFrozen(frozen)).toBe(true);
    for (const previousResponseId of ["", 7, undefined]) {
      expect(() => freezeRequest({ ...request(), previousResponseId } as GenerateOptions)).toThrow(
        expect.objectContaining({ code: "LLM_INVALID_REQUEST", message: "invalid request: previousResponseId must be a non-empty string" }),
      );
    }
  });
});

describe("RequestFreezer on shared history", () => {
  it("validates a message once it was frozen in a request, and leaves a refused request's parts unfrozen", () => {
    const freezer = new RequestFreezer();
    const first = freezer.freeze(request());
    const next = freezer.freeze({ config, messages: [...first.messages, { role: "assistant", content: [], source: "model" }] });
    expect(next.messages[0]).toBe(first.messages[0]);
    const fresh = { role: "user" as const, content: [{ type: "text" as const, text: "x" }], source: "user" };
    expect(() => freezer.freeze({ config, messages: [fresh], tools: [] })).toThrowError(/tools/);
    expect(Object.isFrozen(fresh)).toBe(false);
  });

  it("validates a message that replaced one of the previous list at the same position", () => {
    const freezer = new RequestFreezer();
    const first = freezer.freeze(request());
    const bad = { role: "user", content: "not an array of parts", source: "user" } as never;
    expect(() => freezer.freeze({ config, messages: [bad, ...first.messages.slice(1)] })).toThrowError(/messages\[0\]/);
  });

  it("remembers only lists it accepted: a refused tail, or one after a shorter list, is validated every time", () => {
    const freezer = new RequestFreezer();
    const first = freezer.freeze(request());
    const bad = { role: "user", content: "not an array of parts", source: "user" } as never;
    expect(() => freezer.freeze({ config, messages: [...first.messages, bad] })).toThrowError(/messages\[2\]/);
    expect(() => freezer.freeze({ config, messages: [...first.messages, bad] })).toThrowError(/messages\[2\]/);
    const answer = { role: "assistant" as const, content: [], source: "model" };
    freezer.freeze({ config, messages: [...first.messages, answer, { role: "user", content: [{ type: "text", text: "more" }], source: "user" }] });
    freezer.freeze({ config, messages: [...first.messages] });
    expect(() => freezer.freeze({ config, messages: [...first.messages, answer, bad] })).toThrowError(/messages\[3\]/);
  });

  it("accepts a new request over the very list it accepted last, one that adds to it, and one that reorders it", () => {
    const freezer = new RequestFreezer();
    const first = freezer.freeze(request());
    const again = { config, messages: first.messages } as GenerateOptions;
    expect(freezer.freeze(again)).toBe(again);
    const longer = { config, messages: [...first.messages, { role: "user", content: [{ type: "text", text: "more" }], source: "user" }] } as GenerateOptions;
    expect(freezer.freeze(longer).messages).toHaveLength(3);
    const reordered = freezer.freeze({ config, messages: [longer.messages[0]!, longer.messages[2]!, longer.messages[1]!] });
    expect(Object.isFrozen(reordered.messages)).toBe(true);
  });

  it("refuses a first request without a config", () => {
    expect(() => new RequestFreezer().freeze({ messages: request().messages } as GenerateOptions)).toThrowError(/^invalid request config: /);
  });

  it("checks a changed config or tool list, and remembers the one it accepted", () => {
    const freezer = new RequestFreezer();
    const tools = [{ name: "t", description: "d", parameters: { type: "object" } }];
    freezer.freeze({ ...request(), tools });
    expect(() => freezer.freeze({ ...request(), config: { ...config, maxTokens: -1 } })).toThrowError(/config/);
    expect(() => freezer.freeze({ ...request(), tools: [{ ...tools[0]!, name: "" }] })).toThrowError(/tools/);
    expect(Object.isFrozen(freezer.freeze({ ...request(), tools }).tools)).toBe(true);
  });

  it("returns a request it froze before as is, and keeps a signal live", () => {
    const controller = new AbortController();
    const frozen = freezeRequest({ ...request(), signal: controller.signal });
    expect(freezeRequest(frozen)).toBe(frozen);
    expect(new RequestFreezer().freeze(frozen)).toBe(frozen);
    controller.abort();
    expect(frozen.signal?.aborted).toBe(true);
  });
});

describe("markAgentLoopRequest", () => {
  it("marks exactly the frozen object, never an equal copy", () => {
    const frozen = markAgentLoopRequest(freezeRequest(request()));
    expect(isAgentLoopRequest(frozen)).toBe(true);
    expect(isAgentLoopRequest(freezeRequest(structuredClone(request())))).toBe(false);
    expect(isAgentLoopRequest({ ...frozen })).toBe(false);
    expect(isAgentLoopRequest(null)).toBe(false);
    expect(isAgentLoopRequest("request")).toBe(false);
  });

  it("refuses a request freezeRequest did not return, even a deep-frozen one", () => {
    expect(() => markAgentLoopRequest(request())).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST" }));
    const shallow = Object.freeze(request());
    expect(() => markAgentLoopRequest(shallow)).toThrowError(/deep-frozen/);
    expect(() => markAgentLoopRequest(deepFreeze(request()))).toThrowError("only a deep-frozen request (one freezeRequest returned) can be marked as an agent loop request");
  });
});

describe("requestMemo", () => {
  it("gives the memo of the session whose freezer froze the request, one per key, and none otherwise", () => {
    const freezer = new RequestFreezer();
    const key = Symbol("bytes");
    const first = freezer.freeze(request());
    const memo = requestMemo<string>(first, key)!;
    memo.set(first.messages[1]!, "cached");
    const next = freezer.freeze({ config, messages: [...first.messages, { role: "assistant", content: [], source: "model" }] });
    expect(requestMemo<string>(next, key)).toBe(memo);
    expect(requestMemo<string>(next, Symbol("other"))).not.toBe(memo);
    expect(requestMemo(freezeRequest(request()), key)?.size).toBe(0);
    expect(requestMemo(deepFreeze(request()) as never, key)).toBeUndefined();
  });

  it("drops the entries of messages a later list no longer holds", () => {
    const freezer = new RequestFreezer();
    const key = Symbol("bytes");
    const first = freezer.freeze(request());
    const [system, user] = first.messages;
    const memo = requestMemo<string>(first, key)!;
    memo.set(system!, "s").set(user!, "u");
    const summary = { role: "user" as const, content: [{ type: "text" as const, text: "summary" }], source: "compaction" };
    freezer.freeze({ config, messages: [system!, summary] });
    expect([...memo.keys()]).toEqual([system]);
  });
});
