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

/** Text is tokenized in windows of this many UTF-16 units, which bounds the BPE's cost per window. */
const WINDOW = 256;
/** Segments already tokenized; consecutive requests repeat all but their newest messages. */
const memo = new Map<string, Uint32Array>();
const MEMO_ENTRIES = 8192;

/**
 * Tokens of some text, with a real BPE tokenizer (o200k_base, not DeepSeek's own). The text is cut
 * into windows of 256 units (never inside a surrogate pair), so a long run of one letter costs linear
 * time, not quadratic; special-token text such as `<|endoftext|>` is plain text.
 */
export function tokenize(text: string): number[] {
  const tokens: number[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + WINDOW);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    for (const token of encode(text.slice(start, end), { disallowedSpecial: new Set() })) tokens.push(token);
    start = end;
  }
  return tokens;
}

function segmentTokens(segment: string): Uint32Array {
  let tokens = memo.get(segment);
  if (tokens === undefined) {
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    tokens = Uint32Array.from(tokenize(segment));
    memo.set(segment, tokens);
  }
  return tokens;
}

/** The tokens of rendered segments, concatenated, and the token length at which each segment ends. */
export function segmentsTokens(segments: readonly string[]): { readonly tokens: Uint32Array; readonly ends: readonly number[] } {
  const parts = segments.map(segmentTokens);
  const tokens = new Uint32Array(parts.reduce((sum, part) => sum + part.length, 0));
  const ends: number[] = [];
  let at = 0;
  for (const part of parts) {
    tokens.set(part, at);
    at += part.length;
    ends.push(at);
  }
  return { tokens, ends };
}

/**
 * The prompt tokens of a Chat Completions body. Each rendered segment is tokenized on its own, as
 * role markers are atomic special tokens in real chat templates: appending a message never changes
 * the tokens of the messages before it, and a segment seen before is not tokenized again.
 */
export function promptTokens(body: { tools?: unknown; messages?: unknown }): Uint32Array {
  return segmentsTokens(renderPrompt(body)).tokens;
}
