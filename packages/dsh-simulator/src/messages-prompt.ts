import { createHash } from "node:crypto";
import { tokenize } from "./prompt.js";

/** A content block or tool definition of a Messages API body, as the simulator reads it. */
export interface MessagesBlock {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly thinking?: unknown;
  readonly signature?: unknown;
  readonly data?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
  readonly tool_use_id?: unknown;
  readonly content?: unknown;
  readonly is_error?: unknown;
  readonly source?: { readonly media_type?: unknown; readonly data?: unknown };
  readonly cache_control?: { readonly type?: unknown; readonly ttl?: unknown } | null;
}

/** A Messages API body, as far as the simulator reads it. */
export interface MessagesBody {
  readonly model?: unknown;
  readonly system?: unknown;
  readonly tools?: unknown;
  readonly messages?: unknown;
  readonly thinking?: unknown;
}

/** One rendered block: where it sits, its cumulative token count, its prefix hash and its cache marker. */
export interface RenderedBlock {
  /** `messages.N.content.M`, `system.M` or `tools.M`, for error messages. */
  readonly path: string;
  readonly block: MessagesBlock;
  /** Tokens from the start of the prompt through this block. */
  readonly cumulativeTokens: number;
  /** Hash of the model and every block up to this one, markers left out: the cache key of this prefix. */
  readonly prefixKey: string;
  readonly ttl: "5m" | "1h" | undefined;
}

function asBlocks(value: unknown): MessagesBlock[] {
  if (typeof value === "string") return [{ type: "text", text: value }];
  return Array.isArray(value) ? (value as MessagesBlock[]) : [];
}

/** A block's text as the simulated model reads it; the cache marker is not part of it. */
function renderBlock(block: MessagesBlock): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
      return `<|image ${String(block.source?.media_type)} ${String(block.source?.data ?? "").length}|>`;
    case "thinking":
      return `<|thinking|>${String(block.thinking ?? "")}`;
    case "redacted_thinking":
      return `<|redacted_thinking|>${String(block.data ?? "")}`;
    case "tool_use":
      return `<|tool_use ${String(block.id)} ${String(block.name)}|>${JSON.stringify(block.input ?? {})}`;
    case "tool_result":
      return `<|tool_result ${String(block.tool_use_id)}${block.is_error === true ? " error" : ""}|>${asBlocks(block.content).map(renderBlock).join("")}`;
    default:
      return `<|${String(block.type)}|>`;
  }
}

function renderTool(tool: MessagesBlock): string {
  const { cache_control: _marker, ...definition } = tool as MessagesBlock & Record<string, unknown>;
  return `<|tool|>${JSON.stringify(definition)}`;
}

/** One block of a Messages API prompt, as {@link renderPromptParts} renders it: where it sits, the block, and what it is. */
export interface PromptPart {
  /** `messages.N.content.M`, `system.M` or `tools.M`, for error messages. */
  readonly path: string;
  readonly block: MessagesBlock;
  /** A tool definition, a system prompt block, or a message's block (`opens`: the role of the message it is the first block of). */
  readonly kind: { readonly of: "tool" } | { readonly of: "system" } | { readonly of: "message"; readonly opens?: string };
}

/** A whole prompt as rendered: each part's text, its tokens and the prefix key through it. */
interface RenderedPrompt {
  readonly texts: string[];
  readonly tokens: Uint32Array[];
  readonly keys: string[];
}

/** The last whole prompt rendered for each model (a few models at most): consecutive requests repeat all but their newest blocks. */
const lastPrompts = new Map<string, RenderedPrompt>();
const LAST_PROMPTS = 16;

function partText(part: PromptPart): string {
  const { kind, block } = part;
  if (kind.of === "tool") return renderTool(block);
  if (kind.of === "system") return `<|system|>${renderBlock(block)}`;
  return `${kind.opens === undefined ? "" : `<|${kind.opens}|>`}${renderBlock(block)}`;
}

/**
 * Renders `parts` as the blocks that follow `after` in a prompt for `model` (or that start it): each
 * with its cumulative tokens (gpt-tokenizer's o200k_base, not Claude's own) and a hash chain of
 * prefixes, so a cache entry is an exact prefix of blocks on the same model. The parts' tokens are
 * appended to `tokensOut` when given. A prompt rendered in two calls equals the prompt rendered in one.
 */
export function renderPromptParts(model: string, parts: readonly PromptPart[], after?: RenderedBlock, tokensOut?: number[]): RenderedBlock[] {
  // A whole prompt that repeats the start of the last one for its model reuses that start's tokens and keys.
  const last = after === undefined ? lastPrompts.get(model) : undefined;
  let same = last !== undefined;
  let hash = after?.prefixKey ?? createHash("sha256").update(model).digest("hex");
  let tokens = after?.cumulativeTokens ?? 0;
  const rendered: RenderedPrompt = { texts: [], tokens: [], keys: [] };
  const blocks = parts.map((part, i): RenderedBlock => {
    const text = partText(part);
    same &&= last!.texts[i] === text;
    const own = same ? last!.tokens[i]! : Uint32Array.from(tokenize(text));
    hash = same ? last!.keys[i]! : createHash("sha256").update(hash).update(text).digest("hex");
    tokens += own.length;
    if (tokensOut !== undefined) for (const token of own) tokensOut.push(token);
    rendered.texts.push(text);
    rendered.tokens.push(own);
    rendered.keys.push(hash);
    const marker = part.block.cache_control;
    const ttl = marker === undefined || marker === null ? undefined : marker.ttl === "1h" ? "1h" : "5m";
    return { path: part.path, block: part.block, cumulativeTokens: tokens, prefixKey: hash, ttl };
  });
  if (after === undefined) {
    if (!lastPrompts.has(model) && lastPrompts.size >= LAST_PROMPTS) lastPrompts.clear();
    lastPrompts.set(model, rendered);
  }
  return blocks;
}

/** A Messages API body's blocks in Anthropic's order: tools, system, messages. */
function promptParts(body: MessagesBody): PromptPart[] {
  const parts: PromptPart[] = [];
  asBlocks(body.tools).forEach((tool, i) => parts.push({ path: `tools.${i}`, block: tool, kind: { of: "tool" } }));
  asBlocks(body.system).forEach((block, i) => parts.push({ path: `system.${i}`, block, kind: { of: "system" } }));
  (Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : []).forEach((message, m) => {
    asBlocks(message.content).forEach((block, i) => parts.push({ path: `messages.${m}.content.${i}`, block, kind: i === 0 ? { of: "message", opens: String(message.role) } : { of: "message" } }));
  });
  return parts;
}

/**
 * Renders a Messages API body in Anthropic's order (tools, system, messages), block by block (see
 * {@link renderPromptParts}); the prompt's tokens are appended to `tokensOut` when given.
 */
export function renderMessagesPrompt(body: MessagesBody, tokensOut?: number[]): RenderedBlock[] {
  return renderPromptParts(String(body.model), promptParts(body), undefined, tokensOut);
}
