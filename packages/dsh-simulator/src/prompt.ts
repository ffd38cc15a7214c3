import { encode } from "gpt-tokenizer";

interface WireMessage {
  role?: unknown;
  content?: unknown;
  reasoning_content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: unknown; text?: unknown; image_url?: { url?: unknown } }) =>
      part.type === "text" ? String(part.text ?? "") : `<|image|>${String(part.image_url?.url ?? "").length}`,
    )
    .join("");
}

/**
 * Renders a Chat Completions body the way a server renders its chat template: tools first, then
 * each message between role markers, one segment each. Model and sampling options are not part of
 * the prompt. Reasoning is rendered only on assistant turns that called tools (DeepSeek keeps it there).
 */
export function renderPrompt(body: { tools?: unknown; messages?: unknown }): string[] {
  const parts: string[] = [];
  if (Array.isArray(body.tools) && body.tools.length > 0) parts.push(`<|tools|>${JSON.stringify(body.tools)}<|end|>`);
  for (const message of Array.isArray(body.messages) ? (body.messages as WireMessage[]) : []) {
    let text = `<|${String(message.role)}|>`;
    if (message.tool_call_id !== undefined) text += `[${String(message.tool_call_id)}]`;
    if (message.tool_calls !== undefined && typeof message.reasoning_content === "string") {
      text += `<|think|>${message.reasoning_content}<|/think|>`;
    }
    text += contentText(message.content);
    if (message.tool_calls !== undefined) text += `<|calls|>${JSON.stringify(message.tool_calls)}`;
    parts.push(`${text}<|end|>`);
  }
  return parts;
}

/** Tokens of some text, with a real BPE tokenizer (o200k_base, not DeepSeek's own). */
export function tokenize(text: string): number[] {
  return encode(text);
}

/**
 * The prompt tokens of a Chat Completions body. Each rendered segment is tokenized on its own, as
 * role markers are atomic special tokens in real chat templates: appending a message never changes
 * the tokens of the messages before it.
 */
export function promptTokens(body: { tools?: unknown; messages?: unknown }): number[] {
  return renderPrompt(body).flatMap(tokenize);
}
