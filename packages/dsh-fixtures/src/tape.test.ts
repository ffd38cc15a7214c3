import { StreamAssembler, type AssistantContent } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { answerChunks } from "./tape.js";

describe("answerChunks", () => {
  it("streams a logged answer back into exactly the blocks it was, every kind of signature in place", () => {
    const content: AssistantContent[] = [
      { type: "reasoning", text: "plan" },
      { type: "reasoning", text: "signed", signature: "anthropic" },
      { type: "reasoning", text: "gemini thought", thoughtSignature: "g0" },
      { type: "reasoning", text: "both", signature: "a1", thoughtSignature: "g1" },
      { type: "redacted-reasoning", data: "opaque" },
      { type: "text", text: "one" },
      { type: "text", text: "two", itemId: "msg_1" },
      { type: "text", text: "", thoughtSignature: "g2" },
      { type: "text", text: "signed text", thoughtSignature: "g3" },
      { type: "provider-item", api: "gemini", item: { executableCode: { code: "1" } } },
      { type: "tool-call", callId: "c1", name: "f", arguments: '{"2":1,"1":2}', itemId: "c1", thoughtSignature: "g4" },
      { type: "tool-call", callId: "c2", name: "g", arguments: "{}" },
    ];
    const assembler = new StreamAssembler();
    for (const chunk of answerChunks(content, "tool-calls", undefined, { responseId: "r" })) assembler.push(chunk);
    expect(assembler.result()).toEqual({ content, finishReason: "tool-calls", usage: undefined, responseId: "r" });
  });
});
