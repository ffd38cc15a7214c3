import { describe, expect, it } from "vitest";
import { divergence, FingerprintStore, type Fingerprint } from "./diagnosis.js";
import { messagesFingerprint } from "./fingerprints.js";
import { renderMessagesPrompt, type MessagesBody } from "./messages-prompt.js";

const fingerprint = (body: MessagesBody): Fingerprint => messagesFingerprint(body, renderMessagesPrompt(body));
const base: MessagesBody = {
  model: "claude-sonnet-4-6",
  tools: [{ name: "a", input_schema: {} }],
  system: [{ type: "text", text: "Be terse." }],
  messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }],
};

describe("divergence", () => {
  it("finds nothing when the request extends the previous one, whatever cache markers moved", () => {
    const next = { ...base, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }, { role: "assistant", content: [{ type: "text", text: "yo" }] }] };
    expect(divergence(fingerprint(base), fingerprint(next))).toBeUndefined();
  });

  it("names the first change in Anthropic's order, with the tokens missed and reusable", () => {
    const previous = fingerprint(base);
    const total = previous.parts.at(-1)!.end;
    expect(divergence(previous, fingerprint({ ...base, model: "claude-opus-4-8", tools: [] }))).toEqual({ reason: "model_changed", missedTokens: total, reusableTokens: 0 });
    expect(divergence(previous, fingerprint({ ...base, tools: [...(base.tools as object[]), { name: "b", input_schema: {} }] }))?.reason).toBe("tools_changed");
    expect(divergence(previous, fingerprint({ ...base, system: [{ type: "text", text: "Be verbose." }] }))?.reason).toBe("system_changed");
    const edited = divergence(previous, fingerprint({ ...base, messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }] }));
    expect(edited).toEqual({ reason: "messages_changed", missedTokens: total - previous.base, reusableTokens: previous.base });
    expect(divergence(previous, fingerprint({ ...base, messages: [] }))?.reason).toBe("messages_changed");
  });
});

describe("FingerprintStore", () => {
  it("forgets the oldest past its limit", () => {
    const store = new FingerprintStore(2);
    const print = fingerprint(base);
    for (const id of ["a", "b", "c"]) store.keep(id, print);
    expect([store.get("a"), store.get("b"), store.get("c")]).toEqual([undefined, print, print]);
  });
});
