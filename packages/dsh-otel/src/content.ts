import type { DeepReadonly, JsonValue, Message, ToolSchema, UserContent } from "dsh-llm";
import type { AssistantContent } from "dsh-llm";

/** A message part in the shape of the GenAI conventions' message JSON schemas. */
type Part = { readonly type: string; readonly [key: string]: JsonValue };

/** Tool-call arguments as an object where they parse (the conventions expect one), else the raw text. */
function argumentsValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** Images stay references: a `uri` part naming the attachment's digest, never its bytes. */
function userParts(content: readonly DeepReadonly<UserContent>[]): Part[] {
  return content.map((block) =>
    block.type === "text" ? { type: "text", content: block.text } : { type: "uri", modality: "image", mime_type: block.image.mediaType, uri: `dsh-attachment:${block.image.digest}` },
  );
}

function assistantParts(content: readonly DeepReadonly<AssistantContent>[]): Part[] {
  return content.flatMap((block): Part[] => {
    switch (block.type) {
      case "text":
        return [{ type: "text", content: block.text }];
      case "reasoning":
        return [{ type: "reasoning", content: block.text }];
      case "tool-call":
        return [{ type: "tool_call", id: block.callId, name: block.name, arguments: argumentsValue(block.arguments) }];
      default:
        // Redacted reasoning and provider items are opaque to a person: named, not shown.
        return [{ type: block.type }];
    }
  });
}

/** The text of a tool result, as the conventions' `response` (images as their references). */
function resultText(content: readonly DeepReadonly<UserContent>[]): string {
  return content.map((block) => (block.type === "text" ? block.text : `[image dsh-attachment:${block.image.digest}]`)).join("\n");
}

/** `gen_ai.system_instructions`: the system prompt as text parts (none when it is empty). */
export function systemInstructions(messages: readonly Message[]): Part[] {
  const system = messages.find((message) => message.role === "system");
  return system === undefined || system.content === "" ? [] : [{ type: "text", content: system.content }];
}

/** `gen_ai.input.messages`: the chat history sent, in order, without the system prompt (which has its own attribute). */
export function inputMessages(messages: readonly Message[]): JsonValue[] {
  return messages.flatMap((message): JsonValue[] => {
    switch (message.role) {
      case "system":
        return [];
      case "user":
        return [{ role: "user", parts: userParts(message.content) }];
      case "assistant":
        return [{ role: "assistant", parts: assistantParts(message.content) }];
      case "tool":
        return [{ role: "tool", parts: [{ type: "tool_call_response", id: message.callId, response: resultText(message.content) }] }];
    }
  });
}

/** `gen_ai.output.messages`: the one answer of a step, with the conventions' finish reason. */
export function outputMessages(content: readonly DeepReadonly<AssistantContent>[], finishReason: string): JsonValue[] {
  return [{ role: "assistant", parts: assistantParts(content), finish_reason: finishReason }];
}

/** `gen_ai.tool.definitions`: the tools offered, as function definitions. */
export function toolDefinitions(tools: readonly DeepReadonly<ToolSchema>[]): JsonValue[] {
  return tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description, parameters: tool.parameters as JsonValue }));
}

/** A tool call's arguments and result as the conventions' `gen_ai.tool.call.*` values. */
export function toolCallContent(argumentsText: string | undefined, content: readonly DeepReadonly<UserContent>[]): { readonly arguments: JsonValue | undefined; readonly result: string } {
  return { arguments: argumentsText === undefined ? undefined : argumentsValue(argumentsText), result: resultText(content) };
}
