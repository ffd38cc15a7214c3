import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digest, divergence, FingerprintStore, type Fingerprint } from "./diagnosis.js";
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

describe("digest", () => {
  it("is the first 16 hex digits of the SHA-256 of the value's JSON, the empty text for a value JSON cannot write", () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);
    expect(digest({ a: [1, "b"] })).toBe(sha('{"a":[1,"b"]}'));
    expect(digest(undefined)).toBe(sha(""));
  });
});

describe("divergence, at the edges", () => {
  const settings = [["model_changed", "m"], ["tools_changed", "t"]] as const;
  it("misses the base alone after a request with no parts, and a setting the current request lacks", () => {
    const previous: Fingerprint = { settings, base: 12, partsReason: "messages_changed", parts: [] };
    expect(divergence(previous, { ...previous, settings: [settings[0]] })).toEqual({ reason: "tools_changed", missedTokens: 12, reusableTokens: 0 });
    expect(divergence(previous, { ...previous, parts: [{ hash: "h", end: 20 }] })).toBeUndefined();
    const longer: Fingerprint = { ...previous, parts: [{ hash: "a", end: 20 }, { hash: "b", end: 30 }] };
    expect(divergence(longer, { ...longer, parts: [{ hash: "a", end: 20 }] })).toEqual({ reason: "messages_changed", missedTokens: 10, reusableTokens: 20 });
  });
});

describe("FingerprintStore", () => {
  it("lists what it keeps oldest first, and takes a list back as if its requests had been served", () => {
    const store = new FingerprintStore(3);
    const print = fingerprint(base);
    store.keep("a", print);
    store.keep("b", print);
    expect(store.entries()).toEqual([["a", print], ["b", print]]);
    const restored = new FingerprintStore(1);
    restored.restore(store.entries());
    expect(restored.entries()).toEqual([["b", print]]);
  });

  it("forgets the oldest past its limit", () => {
    const store = new FingerprintStore(2);
    const print = fingerprint(base);
    for (const id of ["a", "b", "c"]) store.keep(id, print);
    expect([store.get("a"), store.get("b"), store.get("c")]).toEqual([undefined, print, print]);
  });
});
