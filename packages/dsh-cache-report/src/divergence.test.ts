import { describe, expect, it } from "vitest";
import { divergence } from "./divergence.js";

describe("divergence", () => {
  it("is nothing where the body starts with all of the one before", () => {
    expect(divergence("abc", "abc")).toBeUndefined();
    expect(divergence("abc", "abcdef")).toBeUndefined();
    expect(divergence("", "x")).toBeUndefined();
  });

  it("names the first differing character and a few characters of each from there", () => {
    expect(divergence("You are careful.", "You are brief.")).toEqual({ offset: 8, was: "careful.", now: "brief." });
    expect(divergence("abcdef", "abc")).toEqual({ offset: 3, was: "def", now: "" });
    expect(divergence("x", "y")).toEqual({ offset: 0, was: "x", now: "y" });
  });

  it("shows 48 characters of each at most, and never half of a surrogate pair", () => {
    const long = "a".repeat(100);
    expect(divergence(`${long}b${long}`, `${long}c${long}`)).toEqual({ offset: 100, was: `b${"a".repeat(47)}`, now: `c${"a".repeat(47)}` });
    // 😀 and 😁 share their high surrogate: the divergence starts at the pair.
    expect(divergence("ab😀", "ab😁")).toEqual({ offset: 2, was: "😀", now: "😁" });
    // The first and the last high surrogates.
    expect(divergence("\u{10000}", "\u{10001}")).toEqual({ offset: 0, was: "\u{10000}", now: "\u{10001}" });
    expect(divergence("a\u{10FC00}", "a\u{10FC01}")).toEqual({ offset: 1, was: "\u{10FC00}", now: "\u{10FC01}" });
    // A low surrogate or a plain character before the difference is not stepped over.
    expect(divergence("\u{10000}a", "\u{10000}b")).toEqual({ offset: 2, was: "a", now: "b" });
    expect(divergence("\uD7FFa", "\uD7FFb")).toEqual({ offset: 1, was: "a", now: "b" });
    expect(divergence("\uDC00a", "\uDC00b")).toEqual({ offset: 1, was: "a", now: "b" });
  });
});
