import type { AttachmentStore } from "dsh-attachments";
import { LlmError, imageBase64, canonicalJson, type AssistantContent, type Message, type ToolSchema, type UserContent } from "dsh-llm";
import { RawJson, type WireValue } from "./wire-json.js";

/** One content block (or tool definition) of the body, before any cache marker is added. */
export interface WireBlock {
  readonly value: { readonly [key: string]: WireValue };
  /** Where the block sits: tools, the system prompt, or a message (by index in the wire `messages`). */
  readonly section: "tools" | "system" | "messages";
  readonly message: number;
  /** The `source` of the dsh message it came from (`compaction` for a summary). */
  readonly source: string | undefined;
  /** Whether the API lets this block carry `cache_control` (thinking blocks cannot). */
  readonly markable: boolean;
}

/** A request laid out as Anthropic renders it: tools, then system, then messages, block by block. */
export interface WireLayout {
  readonly blocks: readonly WireBlock[];
  /** The role of each wire message, in order. */
  readonly roles: readonly ("user" | "assistant")[];
}

function invalid(message: string): LlmError {
  return new LlmError("LLM_INVALID_REQUEST", message);
}

/**
 * Whether the Messages API takes `text` as a text block: it refuses empty and whitespace-only text
 * blocks (HTTP 400), so such text is left out of the body. The log keeps it as it came.
 */
export function sendableText(text: string): boolean {
  return /\S/u.test(text);
}

/** A tool call's `input`: the model's own JSON text when it is an object, else `{}` (an empty or broken argument string). */
export function toolInput(argumentsText: string): WireValue {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return new RawJson(argumentsText);
  } catch {
    // Not JSON: the model's call was refused by the tool; the API still needs an object.
  }
  return {};
}

async function userBlocks(content: readonly UserContent[], attachments: AttachmentStore | undefined): Promise<{ [key: string]: WireValue }[]> {
  const out: { [key: string]: WireValue }[] = [];
  for (const block of content) {
    if (block.type === "text") {
      if (sendableText(block.text)) out.push({ type: "text", text: block.text });
      continue;
    }
    const data = await imageBase64(attachments, block.image);
    out.push({ type: "image", source: { type: "base64", media_type: block.image.mediaType, data } });
  }
  return out;
}

function assistantBlock(block: AssistantContent): { [key: string]: WireValue } | undefined {
  switch (block.type) {
    case "reasoning":
      // Only signed thinking can go back; unsigned reasoning (another provider's) is left out.
      return block.signature === undefined ? undefined : { type: "thinking", thinking: block.text, signature: block.signature };
    case "redacted-reasoning":
      return { type: "redacted_thinking", data: block.data };
    case "text":
      return sendableText(block.text) ? { type: "text", text: block.text } : undefined;
    case "tool-call":
      return { type: "tool_use", id: block.callId, name: block.name, input: toolInput(block.arguments) };
    case "provider-item":
      // Another API's item (an OpenAI reasoning item) means nothing here.
      return undefined;
  }
}

function wrap(block: { [key: string]: WireValue } | undefined): { [key: string]: WireValue }[] {
  return block === undefined ? [] : [block];
}

/** One dsh message laid out: the role its blocks are sent under, and the blocks. */
export interface LaidMessage {
  readonly role: "user" | "assistant";
  readonly blocks: readonly { readonly [key: string]: WireValue }[];
}

/** How a layout gets each message's blocks: made afresh, or taken from a session's cache (synchronously when kept). */
export type BlocksOf = (message: Message) => LaidMessage | Promise<LaidMessage>;

/** The wire blocks of one dsh message, and the role they are sent under. */
export async function messageBlocks(message: Message, attachments: AttachmentStore | undefined): Promise<{ role: "user" | "assistant"; blocks: { [key: string]: WireValue }[] }> {
  switch (message.role) {
    case "user":
      return { role: "user", blocks: await userBlocks(message.content, attachments) };
    case "tool": {
      const content = await userBlocks(message.content, attachments);
      const result: { [key: string]: WireValue } = { type: "tool_result", tool_use_id: message.callId };
      if (content.length > 0) result.content = content;
      if (message.isError) result.is_error = true;
      return { role: "user", blocks: [result] };
    }
    case "assistant":
      return { role: "assistant", blocks: message.content.flatMap((block) => wrap(assistantBlock(block))) };
    case "system":
      throw invalid("a system message may only be the first message: the Messages API has one system prompt");
  }
}

/**
 * Lays a request out block by block: each tool, the system prompt (surface node 0, left out when it
 * has no sendable text), then the messages. Tool results are user blocks; consecutive messages of one
 * role share a wire message. A message that leaves no block (an empty answer, an answer of only
 * whitespace or of another provider's unsigned reasoning) is left out, as the API refuses an empty
 * message: the session stays sendable, and the rule is a pure function of the logged message.
 */
export async function layoutRequest(messages: readonly Message[], tools: readonly ToolSchema[] | undefined, attachments: AttachmentStore | undefined): Promise<WireLayout> {
  return (await layoutWith(messages, tools, (message) => messageBlocks(message, attachments))).layout;
}

/**
 * A layout with where each message's blocks start in it: `starts[i]` for message `i`, then where
 * the last one ends. A system prompt's range is empty (its block belongs to the system section).
 */
export interface IndexedLayout {
  readonly layout: WireLayout;
  readonly starts: readonly number[];
}

/** {@link layoutRequest} with each message's blocks from `blocksOf`, and where each message's blocks start. */
export async function layoutWith(messages: readonly Message[], tools: readonly ToolSchema[] | undefined, blocksOf: BlocksOf): Promise<IndexedLayout> {
  const blocks: WireBlock[] = [];
  for (const tool of tools ?? []) {
    blocks.push({ value: { name: tool.name, description: tool.description, input_schema: canonicalJson(tool.parameters) }, section: "tools", message: -1, source: undefined, markable: true });
  }
  const starts: number[] = [];
  const first = messages[0];
  const system = first?.role === "system";
  if (system) {
    if (sendableText(first.content)) blocks.push({ value: { type: "text", text: first.content }, section: "system", message: -1, source: first.source, markable: true });
    starts.push(blocks.length);
  }
  const roles: ("user" | "assistant")[] = [];
  await layoutMessages(messages, system ? 1 : 0, blocksOf, { blocks, roles, starts });
  return { layout: { blocks, roles }, starts };
}

/**
 * The {@link IndexedLayout} of `messages`, whose first `shared` messages (at least one) are those
 * `previous` was made of: their blocks are kept, and only the rest is laid out.
 */
export async function extendIndexed(previous: IndexedLayout, messages: readonly Message[], shared: number, blocksOf: BlocksOf): Promise<IndexedLayout> {
  const end = previous.starts[shared]!;
  const blocks = previous.layout.blocks.slice(0, end);
  const last = blocks.at(-1);
  const roles = previous.layout.roles.slice(0, last?.section === "messages" ? last.message + 1 : 0);
  const starts = previous.starts.slice(0, shared);
  await layoutMessages(messages, shared, blocksOf, { blocks, roles, starts });
  return { layout: { blocks, roles }, starts };
}

/** What {@link layoutMessages} appends to: the blocks, the roles, and where each message's blocks start (the end last). */
interface Growing {
  readonly blocks: WireBlock[];
  readonly roles: ("user" | "assistant")[];
  readonly starts?: number[];
}

/** Lays out `messages` from `start` on after the blocks and roles of `into`, appending to them. */
async function layoutMessages(messages: readonly Message[], start: number, blocksOf: BlocksOf, into: Growing): Promise<void> {
  const { blocks, roles, starts } = into;
  for (let i = start; i < messages.length; i++) {
    const message = messages[i]!;
    const laid = blocksOf(message);
    // A kept message costs no await: a long history is one synchronous pass.
    const { role, blocks: own } = laid instanceof Promise ? await laid : laid;
    starts?.push(blocks.length);
    if (own.length === 0) continue;
    if (roles.at(-1) !== role) roles.push(role);
    for (const value of own) {
      const markable = value.type !== "thinking" && value.type !== "redacted_thinking";
      blocks.push({ value, section: "messages", message: roles.length - 1, source: message.source, markable });
    }
  }
  starts?.push(blocks.length);
}

/**
 * The layout of a request whose messages are those `layout` was made of followed by `messages`,
 * laying out only the new ones: what {@link layoutRequest} gives for the whole list (a new message
 * of the last message's role joins its wire message). A system message here is `LLM_INVALID_REQUEST`.
 */
export async function extendLayout(layout: WireLayout, messages: readonly Message[], attachments: AttachmentStore | undefined): Promise<WireLayout> {
  const into = { blocks: [...layout.blocks], roles: [...layout.roles] };
  await layoutMessages(messages, 0, (message) => messageBlocks(message, attachments), into);
  return into;
}
