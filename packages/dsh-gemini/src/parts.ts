import type { AttachmentStore } from "dsh-attachments";
import { LlmError, imageBase64, type AssistantContent, type Message, type UserContent } from "dsh-llm";

/** The `api` of the provider items this adapter logs and sends back verbatim. */
export const GEMINI_API = "gemini";

/** One content of the body, its parts already JSON text. */
export interface WireContent {
  readonly role: "user" | "model";
  readonly parts: readonly string[];
}

function invalid(message: string): LlmError {
  return new LlmError("LLM_INVALID_REQUEST", message, { retryable: false });
}

const json = JSON.stringify;

/** `,"thoughtSignature":"…"` when the block carries one. */
function signed(signature: string | undefined): string {
  return signature === undefined ? "" : `,"thoughtSignature":${json(signature)}`;
}

async function userParts(content: readonly UserContent[], attachments: AttachmentStore | undefined, where: string): Promise<string[]> {
  const parts: string[] = [];
  for (const block of content) {
    if (block.type === "text") {
      // The API refuses a request with an empty text part.
      if (block.text === "") throw invalid(`${where} holds an empty text part, which Gemini refuses`);
      parts.push(`{"text":${json(block.text)}}`);
    } else {
      parts.push(`{"inlineData":{"mimeType":${json(block.image.mediaType)},"data":"${await imageBase64(attachments, block.image)}"}}`);
    }
  }
  return parts;
}

/** A call's raw argument text, which Gemini takes as a JSON object (a call another provider made may not be one). */
function argsObject(block: Extract<AssistantContent, { type: "tool-call" }>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(block.arguments);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw invalid(`tool call ${block.callId} has arguments that are not a JSON object, which Gemini's functionCall.args must be`);
  }
  return block.arguments;
}

/**
 * The parts of an answer, in its order: text and signed reasoning (a thought part) with their
 * signatures in place, function calls with the id they came with and their raw argument text, and
 * Gemini's own parts verbatim. Unsigned reasoning, another provider's signed or encrypted reasoning and
 * items, and empty unsigned text are left out.
 */
export function modelParts(content: readonly AssistantContent[]): string[] {
  const parts: string[] = [];
  for (const block of content) {
    switch (block.type) {
      case "text":
        if (block.text !== "" || block.thoughtSignature !== undefined) parts.push(`{"text":${json(block.text)}${signed(block.thoughtSignature)}}`);
        break;
      case "reasoning":
        if (block.thoughtSignature !== undefined) parts.push(`{"text":${json(block.text)},"thought":true${signed(block.thoughtSignature)}}`);
        break;
      case "tool-call": {
        const id = block.itemId === undefined ? "" : `"id":${json(block.itemId)},`;
        parts.push(`{"functionCall":{${id}"name":${json(block.name)},"args":${argsObject(block)}}${signed(block.thoughtSignature)}}`);
        break;
      }
      case "provider-item":
        if (block.api === GEMINI_API) parts.push(json(block.item));
        break;
      case "redacted-reasoning":
        break;
    }
  }
  return parts;
}

/** A tool result as a `functionResponse` part: its text as `output` (or `error`), its images as inline parts. */
async function functionResponse(message: Extract<Message, { role: "tool" }>, callIds: ReadonlyMap<string, string | undefined>, attachments: AttachmentStore | undefined): Promise<string> {
  const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const images = message.content.filter((block) => block.type === "image");
  const id = callIds.get(message.callId);
  const media = images.length === 0 ? "" : `,"parts":[${(await userParts(images, attachments, `the result of ${message.callId}`)).join(",")}]`;
  return `{"functionResponse":{${id === undefined ? "" : `"id":${json(id)},`}"name":${json(message.toolName)},"response":{${json(message.isError ? "error" : "output")}:${json(text)}}${media}}}`;
}

/** The role of the content a message's parts go in: answers are the model's, the rest the user's. */
export function contentRole(message: Message): WireContent["role"] {
  return message.role === "assistant" ? "model" : "user";
}

/** The parts of one message (not the system prompt); a result names its call's id from `callIds`. */
export async function messageParts(message: Message, index: number, callIds: ReadonlyMap<string, string | undefined>, attachments: AttachmentStore | undefined): Promise<string[]> {
  switch (message.role) {
    case "system":
      throw invalid("a system message may only be the first message");
    case "user":
      return userParts(message.content, attachments, `message ${index}`);
    case "tool":
      return [await functionResponse(message, callIds, attachments)];
    case "assistant":
      return modelParts(message.content);
  }
}

/**
 * The contents of a conversation (the system prompt excluded), built one message at a time: user
 * messages and tool results are `user` parts, answers `model` parts, and consecutive messages of one
 * role share a content, so the results of parallel calls answer them together. An answer that leaves
 * no parts is left out. The body `serializeRequest` writes holds the contents after every message;
 * a caller extending a conversation adds only its new messages (the last content may grow).
 */
export class GeminiContents {
  readonly #attachments: AttachmentStore | undefined;
  /** The id each call went out with (Gemini's own, or none), which its result names back. */
  readonly #callIds = new Map<string, string | undefined>();
  readonly #contents: { readonly role: WireContent["role"]; readonly parts: string[] }[] = [];
  #added = 0;

  /** Contents whose images are read from `attachments`. */
  constructor(attachments: AttachmentStore | undefined) {
    this.#attachments = attachments;
  }

  /** The contents of a request's `messages`: all of them but a system prompt first, which is no content. */
  static async of(messages: readonly Message[], attachments: AttachmentStore | undefined): Promise<GeminiContents> {
    const built = new GeminiContents(attachments);
    for (const message of messages[0]?.role === "system" ? messages.slice(1) : messages) await built.add(message);
    return built;
  }

  /** The contents so far; the last one's parts grow while messages of its role are added. */
  get contents(): readonly WireContent[] {
    return this.#contents;
  }

  /** Adds the next message: a new content, or more parts of the last one when the role is the same. */
  async add(message: Message): Promise<void> {
    const index = this.#added++;
    if (message.role === "assistant") for (const block of message.content) if (block.type === "tool-call") this.#callIds.set(block.callId, block.itemId);
    const parts = await messageParts(message, index, this.#callIds, this.#attachments);
    if (parts.length === 0) return;
    const last = this.#contents.at(-1);
    const role = contentRole(message);
    if (last?.role === role) last.parts.push(...parts);
    else this.#contents.push({ role, parts });
  }
}
