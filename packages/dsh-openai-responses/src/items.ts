import type { AttachmentStore } from "dsh-attachments";
import { LlmError, imageBase64, type AssistantContent, type JsonObject, type JsonValue, type Message, type UserContent } from "dsh-llm";

/** The `api` of the provider items this adapter logs and sends back. */
export const RESPONSES_API = "openai-responses";

type Wire = { [key: string]: JsonValue };

/** The marker that ends a reusable prefix at a content part (GPT-5.6 and later). */
const BREAKPOINT: JsonObject = { mode: "explicit" };

async function inputParts(content: readonly UserContent[], attachments: AttachmentStore | undefined): Promise<Wire[]> {
  const parts: Wire[] = [];
  for (const block of content) {
    if (block.type === "text") {
      parts.push({ type: "input_text", text: block.text });
      continue;
    }
    parts.push({ type: "input_image", image_url: `data:${block.image.mediaType};base64,${await imageBase64(attachments, block.image)}`, detail: "auto" });
  }
  return parts;
}

/** Adds the breakpoint to the last part, when `mark` asks for one and there is a part to carry it. */
function marked(parts: Wire[], mark: boolean): Wire[] {
  const last = parts.at(-1);
  if (mark && last !== undefined) parts[parts.length - 1] = { ...last, prompt_cache_breakpoint: BREAKPOINT };
  return parts;
}

/** An answer's text parts of one output message: with the id it came with, or as a plain assistant message. */
function assistantMessage(texts: readonly string[], itemId: string | undefined): Wire {
  if (itemId === undefined) return { type: "message", role: "assistant", content: texts.join("") };
  return { type: "message", id: itemId, role: "assistant", status: "completed", content: texts.map((text) => ({ type: "output_text", text, annotations: [] })) };
}

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const emptyOrAbsent = (value: unknown) => value === undefined || (Array.isArray(value) && value.length === 0);
const only = (object: JsonObject, keys: readonly string[]) => Object.keys(object).every((key) => keys.includes(key));

/**
 * Whether an output message item says no more than its text parts, so that {@link assistantMessage}
 * sends it back as it came: a completed assistant message of `output_text` parts without annotations
 * or log probabilities. Any other (a refusal, cited text, a message cut off) is kept verbatim.
 */
export function textOnlyMessage(item: JsonObject): boolean {
  const { content } = item;
  if (!only(item, ["id", "type", "status", "role", "content"]) || item.role !== "assistant" || item.status !== "completed" || !Array.isArray(content)) return false;
  return content.every((part) => isObject(part) && only(part, ["type", "text", "annotations", "logprobs"]) && part.type === "output_text" && typeof part.text === "string" && emptyOrAbsent(part.annotations) && emptyOrAbsent(part.logprobs));
}

/** The ids of the message items an answer keeps verbatim: their text blocks are for reading, the item goes back. */
function verbatimMessages(content: readonly AssistantContent[]): Set<string> {
  const ids = new Set<string>();
  for (const block of content) {
    if (block.type === "provider-item" && block.api === RESPONSES_API && block.item.type === "message" && typeof block.item.id === "string") ids.add(block.item.id);
  }
  return ids;
}

/**
 * The items of an answer, in the order it gave them: consecutive text blocks of one output item
 * form one message; function calls go back with their item id and raw argument text; this API's own
 * items (reasoning with its encrypted content, a message that says more than its text) go back
 * verbatim, and the text blocks of such a message are left out. Another provider's reasoning and
 * items, which mean nothing here, are left out, as is text no item carried that is empty. Reasoning
 * that ends the answer (one cut off before the item it reasoned toward) is left out too: the API
 * refuses a reasoning item without the item that must follow it.
 */
function assistantItems(content: readonly AssistantContent[]): Wire[] {
  const verbatim = verbatimMessages(content);
  const items: Wire[] = [];
  let texts: string[] = [];
  let textItem: string | undefined;
  const flush = () => {
    if (textItem !== undefined || texts.join("") !== "") items.push(assistantMessage(texts, textItem));
    texts = [];
    textItem = undefined;
  };
  for (const block of content) {
    if (block.type === "text") {
      if (block.itemId !== undefined && verbatim.has(block.itemId)) continue;
      if (block.itemId !== textItem) flush();
      textItem = block.itemId;
      texts.push(block.text);
      continue;
    }
    flush();
    if (block.type === "tool-call") {
      items.push({
        type: "function_call",
        ...(block.itemId === undefined ? {} : { id: block.itemId }),
        call_id: block.callId,
        name: block.name,
        arguments: block.arguments,
        ...(block.itemId === undefined ? {} : { status: "completed" }),
      });
    } else if (block.type === "provider-item" && block.api === RESPONSES_API) {
      items.push(block.item as Wire);
    }
  }
  flush();
  while (items.at(-1)?.type === "reasoning") items.pop();
  return items;
}

/**
 * The input items of one message. The system prompt is a `developer` message, first; user turns are
 * `user` messages; a tool result is a `function_call_output` whose output is a list of parts. `mark`
 * puts an explicit cache breakpoint on the message's last part (answers cannot carry one).
 */
export async function messageItems(message: Message, attachments: AttachmentStore | undefined, mark: boolean): Promise<Wire[]> {
  switch (message.role) {
    case "system":
      return [{ type: "message", role: "developer", content: marked([{ type: "input_text", text: message.content }], mark) }];
    case "user":
      return [{ type: "message", role: "user", content: marked(await inputParts(message.content, attachments), mark) }];
    case "tool": {
      const parts = await inputParts(message.content, attachments);
      // An empty result is an empty text part: the output must say something was returned.
      return [{ type: "function_call_output", call_id: message.callId, output: marked(parts.length === 0 ? [{ type: "input_text", text: "" }] : parts, mark) }];
    }
    case "assistant":
      return assistantItems(message.content);
  }
}

/** Whether a message's items can carry a breakpoint: everything but an answer. */
export function markable(message: Message): boolean {
  return message.role !== "assistant";
}
