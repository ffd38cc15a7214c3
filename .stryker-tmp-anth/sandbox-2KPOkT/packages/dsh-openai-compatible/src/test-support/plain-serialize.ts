// The straightforward serializer the fast one is property-tested against (the code before fragment caching).
import { readImage, type AttachmentStore } from "dsh-attachments";
import { LlmError, type FrozenGenerateOptions, type JsonValue, type Message, type UserContent } from "dsh-llm";
import { effortFields } from "../effort.js";
import type { Dialect, SerializeOptions } from "../serialize.js";

type Wire = { [key: string]: JsonValue };

const OWN_KEYS = new Set([
  "model",
  "messages",
  "tools",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "stop",
  "reasoning_effort",
  "thinking",
  "stream",
  "stream_options",
]);

/** JSON with object keys sorted at every depth, so extension bytes never depend on insertion order. */
function canonical(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  const object = value as { readonly [key: string]: JsonValue };
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, canonical(object[key]!)]),
  );
}

function textOf(content: readonly { readonly type: string; readonly text?: string }[]): string {
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("");
}

async function userContent(content: readonly UserContent[], attachments: AttachmentStore | undefined): Promise<JsonValue> {
  const only = content[0];
  if (content.length === 1 && only?.type === "text") return only.text;
  const parts: JsonValue[] = [];
  for (const block of content) {
    if (block.type === "text") {
      parts.push({ type: "text", text: block.text });
      continue;
    }
    if (attachments === undefined) {
      throw new LlmError("LLM_ATTACHMENT", `image ${block.image.digest} cannot be sent: no attachment store was given`, {
        retryable: false,
      });
    }
    const bytes = await readImage(attachments, block.image);
    const url = `data:${block.image.mediaType};base64,${Buffer.from(bytes).toString("base64")}`;
    parts.push({ type: "image_url", image_url: { url } });
  }
  return parts;
}

async function wireMessage(message: Message, options: SerializeOptions): Promise<Wire> {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: await userContent(message.content, options.attachments) };
    case "tool": {
      if (message.content.some((block) => block.type !== "text")) {
        throw new LlmError("LLM_INVALID_REQUEST", `tool result ${message.callId} holds an image, which Chat Completions tool messages cannot carry`, {
          retryable: false,
        });
      }
      return { role: "tool", tool_call_id: message.callId, content: textOf(message.content) };
    }
    case "assistant": {
      const calls = message.content.flatMap((block) =>
        block.type === "tool-call"
          ? [{ id: block.callId, type: "function", function: { name: block.name, arguments: block.arguments } }]
          : [],
      );
      const text = textOf(message.content);
      const wire: Wire = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
      const reasoning = message.content.flatMap((block) => (block.type === "reasoning" ? [block.text] : [])).join("");
      // DeepSeek's thinking mode needs the reasoning of tool-calling turns sent back; elsewhere it is ignored.
      if (options.dialect === "deepseek" && reasoning !== "") wire.reasoning_content = reasoning;
      if (calls.length > 0) wire.tool_calls = calls;
      return wire;
    }
  }
}

/**
 * The straightforward serializer: one object built and stringified per request, nothing cached. The
 * reference the fast `serializeRequest` is checked against, byte for byte.
 */
export async function serializeRequestPlain(request: FrozenGenerateOptions, options: SerializeOptions): Promise<string> {
  const { config } = request;
  const body: Wire = { model: config.model };
  const messages: JsonValue[] = [];
  for (const message of request.messages) messages.push(await wireMessage(message, options));
  body.messages = messages;
  if (request.tools !== undefined) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: canonical(tool.parameters) },
    }));
  }
  if (config.maxTokens !== undefined) body[options.dialect === "openai" ? "max_completion_tokens" : "max_tokens"] = config.maxTokens;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.stop !== undefined) body.stop = [...config.stop];
  if (config.reasoningEffort !== undefined) Object.assign(body, effortFields(options.dialect, config.reasoningEffort));
  for (const [key, value] of Object.entries(canonical(config.extensions ?? {}) as Wire)) {
    if (OWN_KEYS.has(key) && !(key === "thinking" && body.thinking === undefined)) {
      throw new LlmError("LLM_INVALID_REQUEST", `extension ${key} would override a field the adapter sets`, { retryable: false });
    }
    // Defined, not assigned: an extension named "__proto__" is a field like any other.
    Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  return JSON.stringify(body);
}
