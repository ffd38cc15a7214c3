import { describe, expect, it } from "vitest";
import { modelTextSchema, toolCallBlockSchema } from "./content.js";
import { MAX_JSON_DEPTH } from "./json.js";

describe("modelTextSchema", () => {
  it("refuses half a character at any index, the first one included, naming where", () => {
    const half = "😀".slice(0, 1);
    expect(modelTextSchema.safeParse("fine 😀").success).toBe(true);
    const first = modelTextSchema.safeParse(`${half}x`);
    expect(first.success).toBe(false);
    expect(first.error?.issues[0]).toMatchObject({ code: "custom", message: "half of a character (a lone surrogate) at index 0: text must be well-formed Unicode" });
    expect(modelTextSchema.safeParse(`ab${half}`).error?.issues[0]?.message).toMatch(/at index 2:/);
  });
});

describe("toolCallBlockSchema", () => {
  it("refuses arguments nested deeper than the limit as a custom issue, the shortest such text included", () => {
    const call = (text: string) => toolCallBlockSchema.safeParse({ type: "tool-call", callId: "c", name: "t", arguments: text });
    expect(call("[".repeat(MAX_JSON_DEPTH)).success).toBe(true);
    expect(call("[".repeat(MAX_JSON_DEPTH + 1)).error?.issues[0]).toMatchObject({ code: "custom", message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
  });
});
