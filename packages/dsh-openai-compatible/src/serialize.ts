import type { AttachmentStore } from "dsh-attachments";
import { LlmError, imageBase64, joinedBody, mayKeep, requestMemo, addExtensionFields, canonicalJson, type FrozenGenerateOptions, type OwnFields, type JsonValue, type Message, type UserContent } from "dsh-llm";
import { effortFields } from "./effort.js";

/** Which flavour of the Chat Completions API a server speaks. */
export type Dialect = "deepseek" | "openai";

/** Options of {@link serializeRequest}. */
export interface SerializeOptions {
  readonly dialect: Dialect;
  /** Resolves image references; required as soon as a message holds an image. */
  readonly attachments?: AttachmentStore | undefined;
}

type Wire = { [key: string]: JsonValue };

/** The fields this adapter writes; an extension may set `thinking` only when no effort did. */
const OWNED: OwnFields = {
  own: new Set(["model", "messages", "tools", "max_tokens", "max_completion_tokens", "temperature", "stop", "reasoning_effort", "thinking", "response_format", "stream", "stream_options"]),
  fillable: new Set(["thinking"]),
  providerHeld: new Map([["web_search_options", "web pages the provider fetches and the answer only cites"]]),
};

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
    const url = `data:${block.image.mediaType};base64,${await imageBase64(attachments, block.image)}`;
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
 * The keys of the session memos that hold the wire bytes of frozen messages, one per dialect. A
 * message never changes, so it is serialized once per session; an entry is a pure function of its
 * key, never written again, so concurrent serializations share it safely.
 */
const FRAGMENTS: Readonly<Record<Dialect, symbol>> = { deepseek: Symbol("chat-completions deepseek fragments"), openai: Symbol("chat-completions openai fragments") };

/**
 * The wire bytes of one message. Frozen messages without images are serialized once per dialect and
 * session (in the memo of the session's freezer) and reused by every later request that contains
 * them; a message with an image is serialized afresh, as its bytes are read and verified at every
 * serialization.
 */
async function messageBytes(message: Message, options: SerializeOptions, memo: Map<object, Buffer> | undefined): Promise<Buffer> {
  const bytes = Buffer.from(await serializeMessage(message, options));
  if (memo !== undefined && mayKeep(message)) memo.set(message, bytes);
  return bytes;
}

/**
 * The wire JSON of one message, exactly as it stands in a request body: a body's `messages` are its
 * messages' wire JSON joined by commas, each depending on nothing but the message and the dialect.
 */
export async function serializeMessage(message: Message, options: SerializeOptions): Promise<string> {
  return JSON.stringify(await wireMessage(message, options));
}

/**
 * The exact HTTP body this adapter sends for `request`, as UTF-8 bytes: compact JSON with a fixed key
 * order, no `undefined`, extensions with sorted keys, images as verified data URLs. Messages are
 * serialized once per session, and the bytes of the messages a request repeats from the one before
 * are copied in one piece, so a rebuild of a long session costs what its new messages cost, plus one
 * copy of the body. The caller owns the returned buffer, which shares nothing with any other call.
 */
export async function serializeRequestBytes(request: FrozenGenerateOptions, options: SerializeOptions): Promise<Buffer> {
  const { head, tail } = envelopeBytes(request, options.dialect);
  const key = FRAGMENTS[options.dialect];
  const memo = requestMemo<Buffer>(request, key);
  const { messages } = request;
  return joinedBody(request, { key, head, tail, cached: (index) => memo?.get(messages[index]!), serialize: (index) => messageBytes(messages[index]!, options, memo) });
}

/** The body's bytes before and after the messages, cached per frozen config and tool list: they repeat across a session. */
const envelopes = new WeakMap<object, { readonly dialect: Dialect; readonly tools: unknown; readonly head: Buffer; readonly tail: Buffer }>();

function envelopeBytes(request: FrozenGenerateOptions, dialect: Dialect): { readonly head: Buffer; readonly tail: Buffer } {
  const cached = envelopes.get(request.config);
  if (cached !== undefined && cached.dialect === dialect && cached.tools === request.tools) return cached;
  const { config } = request;
  for (const key of ["cachePolicy", "cacheTtl"] as const) {
    if (config[key] !== undefined) {
      throw new LlmError("LLM_INVALID_REQUEST", `config.${key} is for adapters with explicit cache breakpoints: Chat Completions caches prefixes on its own`, {
        retryable: false,
      });
    }
  }
  if (config.cacheDiagnostics !== undefined) {
    throw new LlmError("LLM_INVALID_REQUEST", "config.cacheDiagnostics is for the Messages and Responses APIs: Chat Completions gives no cache diagnosis", { retryable: false });
  }
  const rest: Wire = {};
  if (request.tools !== undefined) {
    rest.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: canonicalJson(tool.parameters) },
    }));
  }
  if (config.maxTokens !== undefined) rest[dialect === "openai" ? "max_completion_tokens" : "max_tokens"] = config.maxTokens;
  if (config.temperature !== undefined) rest.temperature = config.temperature;
  if (config.stop !== undefined) rest.stop = [...config.stop];
  if (config.reasoningEffort !== undefined) Object.assign(rest, effortFields(dialect, config.reasoningEffort));
  if (config.responseFormat !== undefined) rest.response_format = responseFormatField(dialect, config.responseFormat);
  addExtensionFields(rest, config.extensions, OWNED);
  rest.stream = true;
  rest.stream_options = { include_usage: true };
  // What JSON.stringify({ model, messages, ...rest }) writes around the messages.
  const envelope = {
    dialect,
    tools: request.tools,
    head: Buffer.from(`{"model":${JSON.stringify(config.model)},"messages":[`),
    tail: Buffer.from(`],${JSON.stringify(rest).slice(1)}`),
  };
  if (Object.isFrozen(config) && (request.tools === undefined || Object.isFrozen(request.tools))) envelopes.set(config, envelope);
  return envelope;
}

/**
 * The `response_format` of a structured answer: OpenAI's `json_schema` with the schema (keys sorted);
 * DeepSeek takes only `json_object` (JSON of any shape), so the schema is checked on the answer alone.
 */
function responseFormatField(dialect: Dialect, format: NonNullable<FrozenGenerateOptions["config"]["responseFormat"]>): JsonValue {
  if (dialect === "deepseek") return { type: "json_object" };
  return { type: "json_schema", json_schema: { name: format.name, schema: canonicalJson(format.schema), ...(format.strict === undefined ? {} : { strict: format.strict }) } };
}

/** {@link serializeRequestBytes} as a string: the body a log turns back into. Public so a log can be checked against what was sent. */
export async function serializeRequest(request: FrozenGenerateOptions, options: SerializeOptions): Promise<string> {
  return (await serializeRequestBytes(request, options)).toString("utf8");
}
