import { describe, expect, it } from "vitest";
import { promptTokens, tokenize } from "./prompt.js";

describe("tokenize", () => {
  it("treats special-token text as text", () => {
    expect(tokenize("before <|endoftext|> after").length).toBeGreaterThan(5);
    expect(promptTokens({ messages: [{ role: "user", content: "<|endoftext|>" }] }).length).toBeGreaterThan(0);
  });

  it("handles a 400 KB run of one letter and a 50 MB text without overflowing (linear in the length)", () => {
    expect(tokenize("a".repeat(400_000)).length).toBeGreaterThan(0);
    const huge = "word ".repeat(10_000_000);
    expect(tokenize(huge).length).toBeGreaterThan(1_000_000);
  });

  it("never cuts a surrogate pair and tokenizes the same text the same way", () => {
    const text = `${"x".repeat(255)}𝄞${"é".repeat(300)}`;
    expect(tokenize(text)).toEqual(tokenize(text));
    expect(tokenize(text).length).toBeGreaterThan(0);
  });

  it("keeps the tokens of earlier messages when a message is appended", () => {
    const first = { messages: [{ role: "system", content: "s ".repeat(500) }, { role: "user", content: "q" }] };
    const second = { messages: [...first.messages, { role: "assistant", content: "a" }] };
    const before = promptTokens(first);
    expect(promptTokens(second).slice(0, before.length)).toEqual(before);
  });
});
