import { describe, expect, it } from "vitest";
import { surfaceNodeLabel } from "./node-label.js";

describe("surfaceNodeLabel", () => {
  it("names the system prompt, a tool result by its tool, and other messages by role", () => {
    expect(surfaceNodeLabel({ role: "system", content: "", source: "system-prompt" })).toBe("system prompt");
    expect(surfaceNodeLabel({ role: "tool", callId: "c", toolName: "read_file", content: [], isError: false, source: "tool" })).toBe("tool result read_file");
    expect(surfaceNodeLabel({ role: "user", content: [{ type: "text", text: "hi" }], source: "user" })).toBe("user");
    expect(surfaceNodeLabel({ role: "assistant", content: [], source: "model" })).toBe("assistant");
  });
});
