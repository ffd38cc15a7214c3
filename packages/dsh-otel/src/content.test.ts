import type { Message } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { inputMessages, outputMessages, systemInstructions, toolCallContent, toolDefinitions } from "./content.js";
import { inputMessagesSchema, outputMessagesSchema } from "./test-support/conventions.js";

const image = { digest: `sha256:${"a".repeat(64)}` as const, mediaType: "image/png" as const, byteLength: 70, width: 1, height: 1 };

describe("message content in the conventions' shapes", () => {
  const messages: Message[] = [
    { role: "system", content: "Be brief.", source: "system-prompt" },
    { role: "user", content: [{ type: "text", text: "Look:" }, { type: "image", image }], source: "user" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Thinking." },
        { type: "redacted-reasoning", data: "opaque" },
        { type: "provider-item", api: "openai-responses", item: { type: "reasoning", encrypted_content: "x" } },
        { type: "text", text: "A pixel." },
        { type: "tool-call", callId: "c1", name: "zoom", arguments: '{"x":1}' },
      ],
      source: "model",
    },
    { role: "tool", callId: "c1", toolName: "zoom", content: [{ type: "text", text: "zoomed" }, { type: "image", image }], isError: false, source: "tool" },
  ];

  it("keeps images as attachment references, never bytes, and opaque blocks by their type only", () => {
    const input = inputMessages(messages);
    expect(inputMessagesSchema.parse(input)).toEqual(input);
    expect(input).toEqual([
      { role: "user", parts: [{ type: "text", content: "Look:" }, { type: "uri", modality: "image", mime_type: "image/png", uri: `dsh-attachment:${image.digest}` }] },
      {
        role: "assistant",
        parts: [{ type: "reasoning", content: "Thinking." }, { type: "redacted-reasoning" }, { type: "provider-item" }, { type: "text", content: "A pixel." }, { type: "tool_call", id: "c1", name: "zoom", arguments: { x: 1 } }],
      },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: `zoomed\n[image dsh-attachment:${image.digest}]` }] },
    ]);
    expect(JSON.stringify(input)).not.toContain("encrypted_content");
  });

  it("gives the system prompt its own attribute, none when it is empty", () => {
    expect(systemInstructions(messages)).toEqual([{ type: "text", content: "Be brief." }]);
    expect(systemInstructions([{ role: "system", content: "", source: "system-prompt" }])).toEqual([]);
    expect(systemInstructions(messages.slice(1))).toEqual([]);
  });

  it("shapes an answer, tools and a call's arguments and result", () => {
    const output = outputMessages([{ type: "text", text: "Done." }], "stop");
    expect(outputMessagesSchema.parse(output)).toEqual(output);
    expect(toolDefinitions([{ name: "zoom", description: "Zoom in", parameters: { type: "object" } }])).toEqual([{ type: "function", name: "zoom", description: "Zoom in", parameters: { type: "object" } }]);
    expect(toolCallContent('{"x":1}', [{ type: "text", text: "a" }, { type: "text", text: "b" }])).toEqual({ arguments: { x: 1 }, result: "a\nb" });
    expect(toolCallContent("{broken", [])).toEqual({ arguments: "{broken", result: "" });
    expect(toolCallContent(undefined, [])).toEqual({ arguments: undefined, result: "" });
  });
});
