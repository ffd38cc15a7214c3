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

/**
 * The items of an answer, in the order it gave them: consecutive text blocks of one output item
 * form one message; function calls go back with their item id and raw argument text; this API's own
 * items (reasoning with its encrypted content) go back verbatim. Another provider's reasoning and
 * items, which mean nothing here, are left out, as is text no item carried that is empty.
 */
function assistantItems(content: readonly AssistantContent[]): Wire[] {
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
