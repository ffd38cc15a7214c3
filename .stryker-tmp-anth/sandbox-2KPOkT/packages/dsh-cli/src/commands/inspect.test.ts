import { describe, expect, it } from "vitest";
import { clip } from "./inspect.js";

describe("inspect's one-line preview", () => {
  it("flattens whitespace and clips with an ellipsis", () => {
    expect(clip("  a\n\n b\tc  ")).toBe("a b c");
    expect(clip("word ".repeat(40), 20)).toBe("word word word word…");
  });

  it("looks at the start of a long text only, and still says it was cut", () => {
    const spaced = `start${" ".repeat(5000)}end`;
    expect(clip(spaced)).toBe("start…");
    expect(clip(`${"x".repeat(10)}\n${"y".repeat(10_000)}`, 30)).toBe(`${"x".repeat(10)} ${"y".repeat(18)}…`);
    expect(clip("z".repeat(4096), 5000)).toBe("z".repeat(4096));
  });
});
