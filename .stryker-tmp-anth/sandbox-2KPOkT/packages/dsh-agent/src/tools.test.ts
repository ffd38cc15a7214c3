import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError } from "./errors.js";
import { ToolRegistry, defineTool } from "./tools.js";

const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };

describe("defineTool", () => {
  const tool = defineTool({
    name: "add",
    description: "Add two integers",
    parameters: z.object({ a: z.number().int(), b: z.number().int().optional() }),
    execute: ({ a, b }) => String(a + (b ?? 0)),
  });

  it("offers a deterministic JSON Schema without the $schema marker", () => {
    expect(tool.schema.parameters).toEqual({
      type: "object",
      properties: {
        a: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        b: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      },
      required: ["a"],
    });
  });

  it("parses raw JSON arguments and runs", async () => {
    await expect(tool.invoke('{"a":2,"b":3}', context)).resolves.toEqual({
      content: [{ type: "text", text: "5" }],
      isError: false,
      additionalContexts: [],
    });
  });

  it.each([
    ["bad JSON", "{", "TOOL_INVALID_JSON"],
    ["invalid arguments", '{"a":"two"}', "TOOL_INVALID_ARGUMENTS"],
  ])("turns %s into an error result with a stable code", async (_what, raw, code) => {
    const outcome = await tool.invoke(raw, context);
    expect(outcome.isError).toBe(true);
    expect(outcome.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(new RegExp(`^Error \\[${code}\\]`)) });
  });

  it("reports thrown errors, keeping a ToolError's own code", async () => {
    const failing = (error: Error) =>
      defineTool({ name: "fail", description: "", parameters: z.object({}), execute: () => Promise.reject(error) });
    expect((await failing(new ToolError("TOOL_FAILED", "disk on fire")).invoke("{}", context)).content[0]).toEqual({
      type: "text",
      text: "Error [TOOL_FAILED]: disk on fire",
    });
    expect((await failing(new Error("boom")).invoke("", context)).content[0]).toEqual({ type: "text", text: "Error [TOOL_FAILED]: boom" });
  });

  it("refuses a tool name providers would reject", () => {
    expect(() => defineTool({ name: "bad name!", description: "", parameters: z.object({}), execute: () => "" })).toThrowError(
      expect.objectContaining({ code: "AGENT_INVALID_OPTIONS" }),
    );
  });
});

describe("ToolRegistry", () => {
  it("keeps registration order and unique names", () => {
    const make = (name: string) => defineTool({ name, description: "", parameters: z.object({}), execute: () => "" });
    const registry = new ToolRegistry([make("b"), make("a")]);
    expect(registry.list().map((tool) => tool.schema.name)).toEqual(["b", "a"]);
    expect(() => registry.register(make("a"))).toThrowError(/already registered/);
    expect(registry.unregister("b")).toBe(true);
    expect(registry.list().map((tool) => tool.schema.name)).toEqual(["a"]);
  });
});
