import { extendLayout, layoutRequest, placeBreakpoints, wireBlockJson, type WireLayout } from "dsh-anthropic";
import type { AttachmentStore } from "dsh-attachments";
import type { RequestHeaderSnapshot } from "dsh-header";
import type { Message } from "dsh-llm";
import { renderPromptParts, type PromptPart, type RenderedBlock } from "dsh-simulator";

/** A Messages API request as the cache report last rendered it: its layout, where its markers fell, and its blocks. */
export interface RenderedMessages {
  readonly layout: WireLayout;
  readonly marks: readonly number[];
  readonly blocks: readonly RenderedBlock[];
}

/** Where the header's cache policy puts the markers over `layout`, and the lifetime they carry. */
function markersOf(snapshot: RequestHeaderSnapshot, layout: WireLayout): { readonly marks: ReadonlySet<number>; readonly ttl: "5m" | "1h" } {
  const { config } = snapshot.header;
  // A rebuilt request's config is its header's.
  const marks = new Set(placeBreakpoints({ config }, layout));
  return { marks, ttl: config.cacheTtl === "1h" ? "1h" : "5m" };
}

/** Block `index` of `layout` as the body carries it, marked or not, parsed as the simulator reads it. */
function wireBlock(layout: WireLayout, index: number, ttl: "5m" | "1h" | undefined): PromptPart["block"] {
  return JSON.parse(wireBlockJson(layout.blocks[index]!, ttl)) as PromptPart["block"];
}

/** The layout and markers of a request the report measured whole, with the blocks it rendered, for the next request to extend. */
export async function renderedWhole(snapshot: RequestHeaderSnapshot, messages: readonly Message[], blocks: readonly RenderedBlock[], attachments: AttachmentStore): Promise<RenderedMessages> {
  const layout = await layoutRequest(messages, snapshot.header.tools, attachments);
  return { layout, marks: [...markersOf(snapshot, layout).marks], blocks };
}

/**
 * The blocks of a Messages API request that only adds `fresh` messages to `previous` under the same
 * header, rendered as rendering its whole body would render them: the earlier blocks keep their
 * text, tokens and prefix hashes (a marker is not part of the text), only those whose marker came or
 * went are written again, and only the new blocks are laid out, serialized and tokenized.
 */
export async function extendRendered(previous: RenderedMessages, snapshot: RequestHeaderSnapshot, fresh: readonly Message[], attachments: AttachmentStore): Promise<RenderedMessages> {
  const layout = await extendLayout(previous.layout, fresh, attachments);
  const { marks, ttl } = markersOf(snapshot, layout);
  const kept = previous.blocks.length;
  const blocks = previous.blocks.slice();
  for (const index of new Set([...previous.marks, ...marks])) {
    if (index < kept) blocks[index] = { ...blocks[index]!, block: wireBlock(layout, index, marks.has(index) ? ttl : undefined), ttl: marks.has(index) ? ttl : undefined };
  }
  // Where the last kept block stands in its wire message: a new block of that message continues it
  // (tools and system blocks belong to message -1, never a wire message).
  let position = 0;
  for (let at = kept - 1; at >= 0 && layout.blocks[at]!.message === layout.blocks[kept]?.message; at--) position++;
  const parts: PromptPart[] = [];
  for (let index = kept; index < layout.blocks.length; index++) {
    const { message } = layout.blocks[index]!;
    if (layout.blocks[index - 1]?.message !== message) position = 0;
    const block = wireBlock(layout, index, marks.has(index) ? ttl : undefined);
    parts.push({ path: `messages.${message}.content.${position}`, block, kind: position === 0 ? { of: "message", opens: layout.roles[message]! } : { of: "message" } });
    position++;
  }
  for (const block of renderPromptParts(snapshot.header.config.model, parts, blocks.at(-1))) blocks.push(block);
  return { layout, marks: [...marks], blocks };
}
