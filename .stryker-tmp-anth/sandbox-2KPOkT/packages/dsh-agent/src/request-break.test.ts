import { freezeRequest, type GenerateOptions, type Message } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { requestBreak } from "./request-break.js";

const system: Message = { role: "system", content: "be brief", source: "system-prompt" };
const ask: Message = { role: "user", content: [{ type: "text", text: "list the files" }], source: "user" };
const call: Message = { role: "assistant", content: [{ type: "tool-call", callId: "c1", name: "ls", arguments: "{}" }], source: "model" };
const result: Message = { role: "tool", callId: "c1", toolName: "ls", content: [{ type: "text", text: "a.txt" }], isError: false, source: "tool" };
const tool = { name: "ls", description: "list", parameters: { type: "object" } };
/** A frozen request over `messages` offering the `ls` tool unless `overrides` say otherwise. */
const request = (messages: Message[], overrides: Partial<GenerateOptions> = {}) => freezeRequest({ config: { provider: "sim", model: "sim-1" }, messages, tools: [tool], ...overrides });
/** The same without tools. */
const toolless = (messages: Message[], overrides: Partial<GenerateOptions> = {}) => freezeRequest({ config: { provider: "sim", model: "sim-1" }, messages, ...overrides });

describe("requestBreak", () => {
  const previous = request([system, ask, call]);

  it("is undefined when the next request repeats everything first, however it continues", () => {
    expect(requestBreak(previous, request([system, ask, call, result]))).toBeUndefined();
    expect(requestBreak(previous, request([system, ask, call]))).toBeUndefined();
    // Equal content in other objects (a fold rebuilt from the log) still extends.
    expect(requestBreak(previous, request(structuredClone([system, ask, call, result])))).toBeUndefined();
  });

  it("names a model change before anything else", () => {
    expect(requestBreak(previous, toolless([system], { config: { provider: "sim", model: "sim-2" } }))).toBe("the model changed");
    expect(requestBreak(previous, request([system, ask, call], { config: { provider: "other", model: "sim-1" } }))).toBe("the model changed");
  });

  it("names a change of the tools, which precede the messages", () => {
    expect(requestBreak(previous, request([system, ask, call, result], { tools: [{ ...tool, description: "list files" }] }))).toBe("the tools changed");
    expect(requestBreak(previous, toolless([system, ask, call]))).toBe("the tools changed");
    expect(requestBreak(toolless([system]), toolless([system, ask]))).toBeUndefined();
  });

  it("names the first node the next request does not repeat, with its label", () => {
    expect(requestBreak(previous, request([{ ...system, content: "be terse" }, ask, call]))).toBe("node 0 (system prompt) was replaced");
    expect(requestBreak(request([system, ask, call, result]), request([system, ask, call, { ...result, content: [{ type: "text", text: "[trimmed]" }] }]))).toBe("node 3 (tool result ls) was replaced");
    expect(requestBreak(previous, request([system, ask]))).toBe("node 2 (assistant) was replaced");
  });

  it("leaves call settings other than the model alone: they are not part of the cached prefix", () => {
    expect(requestBreak(previous, request([system, ask, call], { config: { provider: "sim", model: "sim-1", maxTokens: 10 } }))).toBeUndefined();
  });
});
