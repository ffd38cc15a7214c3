import { describe, expect, it } from "vitest";
import type { LlmCallConfig } from "./config.js";
import { deepFreeze } from "./freeze.js";
import { PlacedBytes, mayKeep } from "./kept.js";
import type { Message } from "./messages.js";
import { RequestFreezer, type FrozenGenerateOptions } from "./request.js";

const config: LlmCallConfig = { provider: "test", model: "m" };
const text = (words: string): Message => ({ role: "user", content: [{ type: "text", text: words }], source: "user" });
const image = { type: "image" as const, image: { digest: `sha256:${"a".repeat(64)}` as const, mediaType: "image/png" as const, byteLength: 70, width: 4, height: 3 } };
const key = Symbol("placed");

function session(...messages: Message[]): FrozenGenerateOptions {
  return new RequestFreezer().freeze({ config, messages });
}

describe("mayKeep", () => {
  it("is true only for a frozen message without an image", () => {
    expect(mayKeep(deepFreeze(text("hi")))).toBe(true);
    expect(mayKeep(text("hi"))).toBe(false);
    expect(mayKeep(deepFreeze<Message>({ role: "user", content: [{ type: "text", text: "see" }, image], source: "user" }))).toBe(false);
    expect(mayKeep(deepFreeze<Message>({ role: "tool", callId: "c", toolName: "shot", content: [image], isError: false, source: "tool" }))).toBe(false);
    expect(mayKeep(deepFreeze<Message>({ role: "assistant", content: [], source: "model" }))).toBe(true);
  });
});

describe("PlacedBytes", () => {
  it("gives kept bytes back only at the place they were made for, to every request of the session", () => {
    const freezer = new RequestFreezer();
    const first = freezer.freeze({ config, messages: [text("hi")] });
    const message = first.messages[0]!;
    const bytes = Buffer.from('{"hi"}');
    new PlacedBytes(first, key).keep(message, "first", bytes);
    const next = new PlacedBytes(freezer.freeze({ config, messages: [message, text("again")] }), key);
    expect(next.at(message, "first")).toBe(bytes);
    expect(next.at(message, "after a comma")).toBeUndefined();
    expect(next.kept(message)).toEqual({ place: "first", bytes });
    expect(next.at(text("hi"), "first")).toBeUndefined();
    expect(new PlacedBytes(first, Symbol("another adapter")).kept(message)).toBeUndefined();
  });

  it("keeps the bytes made last for a message, with their place", () => {
    const request = session(text("hi"));
    const placed = new PlacedBytes(request, key);
    placed.keep(request.messages[0]!, "first", Buffer.from("a"));
    placed.keep(request.messages[0]!, "next", Buffer.from("b"));
    expect(placed.at(request.messages[0]!, "first")).toBeUndefined();
    expect(placed.at(request.messages[0]!, "next")?.toString()).toBe("b");
  });

  it("keeps nothing of a message with an image, nor for a request no freezer froze", () => {
    const request = session({ role: "user", content: [image], source: "user" });
    const placed = new PlacedBytes(request, key);
    placed.keep(request.messages[0]!, "first", Buffer.from("x"));
    expect(placed.kept(request.messages[0]!)).toBeUndefined();
    const alone = deepFreeze({ config, messages: [text("hi")] }) as FrozenGenerateOptions;
    const unkept = new PlacedBytes(alone, key);
    unkept.keep(alone.messages[0]!, "first", Buffer.from("x"));
    expect(unkept.kept(alone.messages[0]!)).toBeUndefined();
    expect(unkept.at(alone.messages[0]!, "first")).toBeUndefined();
  });
});
