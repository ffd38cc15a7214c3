import { PlacedBytes, type FrozenGenerateOptions, type JoinedBodyParts, type Message } from "dsh-llm";
import type { BlocksOf, IndexedLayout, LaidMessage, WireBlock } from "./blocks.js";
import { writeWireJson } from "./wire-json.js";

/** A block's value as sent: itself, or a copy with the cache marker when a breakpoint falls on it (`ttl`). */
export function sent(value: WireBlock["value"], ttl: string | undefined): WireBlock["value"] {
  return ttl === undefined ? value : { ...value, cache_control: { type: "ephemeral", ttl } };
}

/** The key of the session memo of each unmarked frozen, image-free message's bytes in the wire `messages`, kept with what opens them (see {@link opening}). */
const BYTES = Symbol("messages bytes");

/** What opens a wire message of each role: first in the wire `messages`, or after another one. */
const OPENINGS = {
  user: { first: '{"role":"user","content":[', next: ']},{"role":"user","content":[' },
  assistant: { first: '{"role":"assistant","content":[', next: ']},{"role":"assistant","content":[' },
} as const;

/**
 * What the bytes of message `index` start with in the wire `messages`: nothing when it leaves no
 * block, a comma when it joins the wire message before, else (after closing that one) a new wire message.
 */
function opening({ layout, starts }: IndexedLayout, index: number): string {
  const first = starts[index]!;
  if (first === starts[index + 1]) return "";
  const block = layout.blocks[first]!;
  const before = layout.blocks[first - 1];
  const open = OPENINGS[layout.roles[block.message]!];
  if (before === undefined || before.section !== "messages") return open.first;
  return before.message === block.message ? "," : open.next;
}

/** Which messages hold a marked block of the wire `messages` (by message index). */
function markedMessages({ layout, starts }: IndexedLayout, marks: ReadonlySet<number>): Set<number> {
  const marked = new Set<number>();
  for (const mark of marks) {
    if (layout.blocks[mark]!.section !== "messages") continue;
    // The last message whose blocks start at or before the mark holds it (messages without blocks start where the next does).
    let low = 0;
    let high = starts.length - 2;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= mark) low = middle;
      else high = middle - 1;
    }
    marked.add(low);
  }
  return marked;
}

/** No blocks: what the system prompt (surface node 0) leaves in the wire `messages`. */
const NO_BLOCKS: LaidMessage = { role: "user", blocks: [] };

/**
 * How {@link joinedBody} gets the bytes of `request`'s messages in the wire `messages`, each with
 * what opens it and its blocks' JSON (markers on the `marks` blocks of the layout): kept per session
 * for a frozen, image-free, unmarked message while it opens the same way; made afresh otherwise.
 */
export function messagesParts(request: FrozenGenerateOptions, indexed: IndexedLayout, marks: ReadonlySet<number>, ttl: string, blocksOf: BlocksOf): Omit<JoinedBodyParts, "head" | "tail"> {
  const { messages } = request;
  const placed = new PlacedBytes(request, BYTES);
  const marked = markedMessages(indexed, marks);
  const made = async (message: Message, index: number): Promise<Buffer> => {
    const start = indexed.starts[index]!;
    // An image is read and verified afresh for every request that sends it.
    const { blocks } = message.role === "system" ? NO_BLOCKS : await blocksOf(message);
    const json = blocks.map((value, j) => writeWireJson(sent(value, marks.has(start + j) ? ttl : undefined)));
    const open = opening(indexed, index);
    const bytes = Buffer.from(open + json.join(","));
    if (!marked.has(index)) placed.keep(message, open, bytes);
    return bytes;
  };
  return {
    key: BYTES,
    separator: "",
    marked: [...marked],
    cached: (index) => (marked.has(index) ? undefined : placed.at(messages[index]!, opening(indexed, index))),
    serialize: (index) => made(messages[index]!, index),
  };
}
