import { createHmac } from "node:crypto";
import type { MessagesBlock, MessagesBody, RenderedBlock } from "./messages-prompt.js";

/** The most cache markers one request may carry. */
export const MAX_CACHE_MARKERS = 4;

/** The minimum cacheable prefix per Claude model; other names (`sim-1`, …) get 1024 tokens. */
const MIN_CACHEABLE: Readonly<Record<string, number>> = {
  "claude-opus-4-8": 1024,
  "claude-opus-4-7": 2048,
  "claude-opus-4-6": 4096,
  "claude-sonnet-4-6": 1024,
  "claude-haiku-4-5": 4096,
  "claude-haiku-4-5-20251001": 4096,
  "claude-sonnet-4-5": 1024,
  "claude-sonnet-4-5-20250929": 1024,
  "claude-opus-4-5": 4096,
  "claude-opus-4-5-20251101": 4096,
};

/** The minimum cacheable prefix of `model`, in tokens. */
export function minCacheableTokens(model: string): number {
  return Object.hasOwn(MIN_CACHEABLE, model) ? MIN_CACHEABLE[model]! : 1024;
}

/** The signature the simulator gives a thinking text; stable across runs, so resumed sessions still verify. */
export function signThinking(text: string): string {
  return createHmac("sha256", "dsh-simulator-thinking").update(text).digest("base64");
}

/** How the simulator treats one Messages API body. */
export type MessagesVerdict = { readonly refused: true; readonly message: string } | { readonly refused: false; readonly thinking: boolean };

function thinkingOn(body: MessagesBody): boolean {
  const type = (body.thinking as { type?: unknown } | undefined)?.type;
  return type === "enabled" || type === "adaptive";
}

/** In a tool-use continuation with thinking on, the last assistant message must open with its thinking block. */
function continuationProblem(body: MessagesBody): string | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  const last = messages.at(-1);
  const results = Array.isArray(last?.content) && (last.content as MessagesBlock[]).some((block) => block.type === "tool_result");
  const index = messages.map((message) => message.role).lastIndexOf("assistant");
  if (last?.role !== "user" || !results || index < 0) return undefined;
  const first = (Array.isArray(messages[index]!.content) ? (messages[index]!.content as MessagesBlock[]) : [])[0];
  if (first?.type === "thinking" || first?.type === "redacted_thinking") return undefined;
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
}

function contentOf(value: unknown): readonly MessagesBlock[] {
  return Array.isArray(value) ? (value as MessagesBlock[]) : [];
}

/** A text block the API refuses: empty, or whitespace only. */
function textProblem(section: string, blocks: readonly MessagesBlock[]): string | undefined {
  for (const block of blocks) {
    if (block.type === "tool_result") {
      const inner = textProblem(section, contentOf(block.content));
      if (inner !== undefined) return inner;
    }
    if (block.type !== "text") continue;
    const text = typeof block.text === "string" ? block.text : "";
    if (text === "") return `${section}: text content blocks must be non-empty`;
    if (!/\S/u.test(text)) return `${section}: text content blocks must contain non-whitespace text`;
  }
  return undefined;
}

/** Empty messages (but a final assistant one) and empty or blank text blocks, as the API words its refusals. */
function contentProblem(body: MessagesBody): string | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  for (const [i, message] of messages.entries()) {
    const empty = message.content === "" || (Array.isArray(message.content) && message.content.length === 0);
    if (empty && !(i === messages.length - 1 && message.role === "assistant")) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
  }
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : contentOf(body.system);
  return textProblem("system", system) ?? messages.map((message) => textProblem("messages", contentOf(message.content))).find((problem) => problem !== undefined);
}

/** The path of the first string in `value` holding half of a character, which no JSON parser of the API accepts. */
function loneSurrogatePath(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return /\p{Cs}/u.test(value) ? path : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = loneSurrogatePath(inner, path === "" ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Anthropic's rules for a request, as HTTP 400 messages: no string holding half a character, no empty
 * message but a final assistant one, no empty or whitespace-only text block, at most 4 cache
 * markers, 1-hour markers before 5-minute ones, every thinking block unaltered (its signature
 * verifies), and with thinking on, a tool-use follow-up whose assistant turn still opens with its
 * thinking.
 */
export function messagesVerdict(body: MessagesBody, blocks: readonly RenderedBlock[]): MessagesVerdict {
  const surrogate = loneSurrogatePath(body, "");
  if (surrogate !== undefined) return { refused: true, message: `${surrogate}: the request body is not valid UTF-8: unpaired surrogate` };
  const content = contentProblem(body);
  if (content !== undefined) return { refused: true, message: content };
  const marked = blocks.filter((block) => block.ttl !== undefined);
  if (marked.length > MAX_CACHE_MARKERS) return { refused: true, message: `A maximum of ${MAX_CACHE_MARKERS} blocks with cache_control may be provided. Found ${marked.length}.` };
  const firstShort = marked.findIndex((block) => block.ttl === "5m");
  if (firstShort >= 0 && marked.slice(firstShort).some((block) => block.ttl === "1h")) {
    return { refused: true, message: "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block" };
  }
  for (const { path, block } of blocks) {
    if (block.type === "thinking" && block.signature !== signThinking(String(block.thinking ?? ""))) {
      return { refused: true, message: `${path}: Invalid \`signature\` in \`thinking\` block` };
    }
  }
  const thinking = thinkingOn(body);
  const problem = thinking ? continuationProblem(body) : undefined;
  return problem === undefined ? { refused: false, thinking } : { refused: true, message: problem };
}
