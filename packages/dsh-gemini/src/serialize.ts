import type { AttachmentStore } from "dsh-attachments";
import { LlmError, addExtensionFields, canonicalJson, joinedBody, type FrozenGenerateOptions, type JsonValue, type OwnFields } from "dsh-llm";
import { thinkingLevelOf } from "./catalog.js";
import { contentsParts, hasContents } from "./content-bytes.js";

/** Options of {@link serializeRequest}. */
export interface GeminiSerializeOptions {
  /** Resolves image references; required as soon as a message holds an image. */
  readonly attachments?: AttachmentStore | undefined;
}

type Wire = { [key: string]: JsonValue };

/**
 * The fields this adapter writes. An extension may add what it does not (`safetySettings`,
 * `toolConfig`, `labels`), never what carries the conversation or its settings, nor a
 * `cachedContent`: content the provider holds, which no log could rebuild.
 */
const OWNED: OwnFields = {
  own: new Set(["contents", "systemInstruction", "tools", "generationConfig", "model"]),
  fillable: new Set(),
  providerHeld: new Map([["cachedContent", "a cached content the provider stores"]]),
};

function invalid(message: string): LlmError {
  return new LlmError("LLM_INVALID_REQUEST", message, { retryable: false });
}

/** `generationConfig`, keys in a fixed order; absent when the request sets nothing it holds. */
function generationConfig(request: FrozenGenerateOptions): Wire | undefined {
  const { config } = request;
  if (config.cacheTtl !== undefined || config.cachePolicy !== undefined) {
    throw invalid("Gemini caches prompts implicitly: config.cachePolicy and config.cacheTtl are for explicit breakpoints and have no counterpart");
  }
  if (config.cacheDiagnostics === true) throw invalid("Gemini gives no prompt cache diagnostics: leave config.cacheDiagnostics unset");
  const wire: Wire = {};
  if (config.maxTokens !== undefined) wire.maxOutputTokens = config.maxTokens;
  if (config.temperature !== undefined) wire.temperature = config.temperature;
  if (config.stop !== undefined) wire.stopSequences = [...config.stop];
  const format = config.responseFormat;
  if (format !== undefined) {
    wire.responseMimeType = "application/json";
    wire.responseJsonSchema = canonicalJson(format.schema);
  }
  // Thoughts are asked for with the level, so the log keeps what the model says of its reasoning.
  if (config.reasoningEffort !== undefined) wire.thinkingConfig = { thinkingLevel: thinkingLevelOf(config.reasoningEffort, config.model), includeThoughts: true };
  return Object.keys(wire).length === 0 ? undefined : wire;
}

/** Everything but `contents`, in a fixed key order. */
function envelope(request: FrozenGenerateOptions): Wire {
  const wire: Wire = {};
  const [first] = request.messages;
  // An empty system prompt is no instruction (the API refuses an empty text part).
  if (first?.role === "system" && first.content !== "") wire.systemInstruction = { parts: [{ text: first.content }] };
  if (request.tools !== undefined) {
    wire.tools = [{ functionDeclarations: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: canonicalJson(tool.parameters) })) }];
  }
  const generation = generationConfig(request);
  if (generation !== undefined) wire.generationConfig = generation;
  addExtensionFields(wire, request.config.extensions, OWNED);
  return wire;
}

/**
 * The exact HTTP body this adapter sends for `request` to `models/{model}:streamGenerateContent`, as
 * UTF-8 bytes: compact JSON, keys in a fixed order with `contents` last, so each request of a session
 * is the previous one's bytes with new parts appended. The model is in the URL, never in the body;
 * every thought signature goes back in the part it came in, and every call's arguments as the model
 * wrote them. In a session, each message's bytes are written once (again only where it joins the
 * content before it differently, or its call's id changed), and the part of a body a request repeats
 * from the one before is copied in one piece.
 */
export async function serializeRequestBytes(request: FrozenGenerateOptions, options: GeminiSerializeOptions = {}): Promise<Buffer> {
  const head = JSON.stringify(envelope(request));
  if (!hasContents(request)) throw invalid("Gemini needs at least one message besides the system prompt");
  return joinedBody(request, {
    ...contentsParts(request, options.attachments),
    head: Buffer.from(`${head === "{}" ? "{" : `${head.slice(0, -1)},`}"contents":[`),
    tail: CLOSE,
  });
}

/** What closes the last content, `contents` and the body. */
const CLOSE = Buffer.from("]}]}");

/** {@link serializeRequestBytes} as a string: the body a log turns back into. */
export async function serializeRequest(request: FrozenGenerateOptions, options: GeminiSerializeOptions = {}): Promise<string> {
  return (await serializeRequestBytes(request, options)).toString("utf8");
}
