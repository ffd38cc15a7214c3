import { describe, expect, it } from "vitest";
import { renderMessagesPrompt, type MessagesBody } from "./messages-prompt.js";
import { MAX_CACHE_MARKERS, messagesVerdict, minCacheableTokens, signThinking } from "./messages-rules.js";

/** The verdict on `body`, its blocks rendered as the server renders them. */
const verdict = (body: MessagesBody) => messagesVerdict(body, renderMessagesPrompt(body));
const refusal = (body: MessagesBody) => {
  const result = verdict(body);
  return result.refused ? result.message : undefined;
};

const user = (content: unknown) => ({ role: "user", content });
const text = (value: string, ttl?: string) => ({ type: "text", text: value, ...(ttl === undefined ? {} : { cache_control: { type: "ephemeral", ttl } }) });
const thought = (thinking: string) => ({ type: "thinking", thinking, signature: signThinking(thinking) });

describe("messagesVerdict", () => {
  it("takes a plain request, and says whether thinking is on (enabled or adaptive)", () => {
    expect(verdict({ model: "m", messages: [user("Hi.")] })).toEqual({ refused: false, thinking: false });
    expect(verdict({ model: "m", thinking: { type: "enabled", budget_tokens: 1024 }, messages: [user("Hi.")] })).toEqual({ refused: false, thinking: true });
    expect(verdict({ model: "m", thinking: { type: "adaptive" }, messages: [user("Hi.")] })).toEqual({ refused: false, thinking: true });
    expect(verdict({ model: "m", thinking: { type: "disabled" }, messages: [user("Hi.")] })).toEqual({ refused: false, thinking: false });
  });

  it("refuses empty messages but a final assistant one, and empty or blank text blocks, in the system prompt and tool results too", () => {
    expect(refusal({ messages: [user(""), user("x")] })).toBe("messages.0: all messages must have non-empty content except for the optional final assistant message");
    expect(refusal({ messages: [user("x"), user([])] })).toBe("messages.1: all messages must have non-empty content except for the optional final assistant message");
    expect(refusal({ messages: [user("x"), { role: "assistant", content: [] }] })).toBeUndefined();
    expect(refusal({ messages: [{ role: "assistant", content: "" }, user("x")] })).toBe("messages.0: all messages must have non-empty content except for the optional final assistant message");
    expect(refusal({ messages: [user([text("")])] })).toBe("messages: text content blocks must be non-empty");
    expect(refusal({ messages: [user([text("ok"), text(" \n")])] })).toBe("messages: text content blocks must contain non-whitespace text");
    expect(refusal({ system: " ", messages: [user("x")] })).toBe("system: text content blocks must contain non-whitespace text");
    expect(refusal({ system: [text("")], messages: [user("x")] })).toBe("system: text content blocks must be non-empty");
    expect(refusal({ messages: [user([{ type: "tool_result", tool_use_id: "t", content: [text(" ")] }])] })).toBe("messages: text content blocks must contain non-whitespace text");
    expect(refusal({ messages: [user([{ type: "text" }])] })).toBe("messages: text content blocks must be non-empty");
    expect(refusal({ messages: [user([{ type: "tool_result", tool_use_id: "t", content: "fine" }, { type: "image" }])] })).toBeUndefined();
  });

  it("refuses a string holding half a character, naming where", () => {
    expect(refusal({ messages: [user([text("a\uD800b")])] })).toBe("messages.0.content.0.text: the request body is not valid UTF-8: unpaired surrogate");
    expect(refusal({ system: "\uDC00", messages: [user("x")] })).toBe("system: the request body is not valid UTF-8: unpaired surrogate");
    expect(refusal({ messages: [user([text("𝄞 is whole")])] })).toBeUndefined();
  });

  it("refuses more than four cache markers, and a 1-hour marker after a 5-minute one", () => {
    expect(MAX_CACHE_MARKERS).toBe(4);
    const marked = (ttls: string[]) => ({ messages: [user(ttls.map((ttl, i) => text(`t${i}`, ttl)))] });
    expect(refusal(marked(["1h", "1h", "5m", "5m"]))).toBeUndefined();
    expect(refusal(marked(["5m", "5m", "5m", "5m", "5m"]))).toBe("A maximum of 4 blocks with cache_control may be provided. Found 5.");
    expect(refusal(marked(["5m", "1h"]))).toBe("a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block");
    expect(refusal(marked(["1h", "5m", "1h"]))).toBe("a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block");
  });

  it("refuses a thinking block whose signature does not verify, and with thinking on a tool-use follow-up whose answer lost its thinking", () => {
    const call = { type: "tool_use", id: "t", name: "f", input: {} };
    const result = user([{ type: "tool_result", tool_use_id: "t", content: "r" }]);
    const on = { type: "enabled", budget_tokens: 1024 };
    expect(refusal({ thinking: on, messages: [user("Go."), { role: "assistant", content: [thought("Plan."), call] }, result] })).toBeUndefined();
    expect(refusal({ thinking: on, messages: [user("Go."), { role: "assistant", content: [{ type: "redacted_thinking", data: "x" }, call] }, result] })).toBeUndefined();
    expect(refusal({ messages: [user("Go."), { role: "assistant", content: [{ ...thought("Plan."), thinking: "Changed." }, call] }, result] })).toBe("messages.1.content.0: Invalid `signature` in `thinking` block");
    expect(refusal({ thinking: on, messages: [user("Go."), { role: "assistant", content: [call] }, result] })).toBe(
      "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.",
    );
    // Without thinking, or when the last message holds no tool result, or there is no answer yet, the rule does not apply.
    expect(refusal({ messages: [user("Go."), { role: "assistant", content: [call] }, result] })).toBeUndefined();
    expect(refusal({ thinking: on, messages: [user("Go."), { role: "assistant", content: [call] }, user("More.")] })).toBeUndefined();
    expect(refusal({ thinking: on, messages: [result] })).toBeUndefined();
    expect(refusal({ thinking: on, messages: [user("Go."), { role: "assistant", content: "plain" }, result] })).toBe(
      "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `undefined`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.",
    );
  });
});

describe("minCacheableTokens and signThinking", () => {
  it("gives each Claude model its minimum cacheable prefix and other names 1024, and signs a text the same way every time", () => {
    expect([minCacheableTokens("claude-opus-4-6"), minCacheableTokens("claude-opus-4-7"), minCacheableTokens("claude-sonnet-4-6"), minCacheableTokens("sim-1"), minCacheableTokens("toString")]).toEqual([4096, 2048, 1024, 1024, 1024]);
    expect(signThinking("a")).toBe(signThinking("a"));
    expect(signThinking("a")).not.toBe(signThinking("b"));
    expect(signThinking("a")).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
