import { AttachmentError } from "dsh-attachments";
import type { DeepReadonly, UserContent } from "dsh-llm";
import type { EventInput, EventLog } from "dsh-log";
import { toolResultEvent, userMessageEvent, type SurfaceManager } from "dsh-surface";
import { attachmentQuarantineEvent } from "./events.js";

/**
 * Trims old tool results: each result outside the `keepRecent` most recent nodes whose text is
 * longer than `maxChars` is replaced, as a logged single-entry replace of the same call, by a short
 * placeholder. Returns how many were trimmed.
 */
export async function trimToolResults(
  log: EventLog,
  surface: SurfaceManager,
  options: { readonly maxChars?: number; readonly keepRecent?: number },
): Promise<number> {
  const maxChars = options.maxChars ?? 2000;
  const nodes = surface.state.nodes.toArray();
  const candidates = nodes.slice(0, Math.max(0, nodes.length - (options.keepRecent ?? 4)));
  let trimmed = 0;
  for (const node of candidates) {
    const event = log.get(node.seq);
    if (event === undefined || !toolResultEvent.is(event)) continue;
    const text = event.data.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    if (text.length <= maxChars) continue;
    const { callId, toolName, isError } = event.data;
    const placeholder = `[trimmed: ${text.length} characters]\n${text.slice(0, 200)}`;
    await surface.replaceGeneration(
      { start: node.seq, end: node.seq },
      toolResultEvent.input({ callId, toolName, isError, content: [{ type: "text", text: placeholder }], source: "trim" }),
    );
    trimmed++;
  }
  return trimmed;
}

/** Seqs of the current surface nodes whose content references the object `digest`. */
export function nodesReferencing(surface: SurfaceManager, digest: string): number[] {
  const messages = surface.deriveMessages();
  return surface.nodeSeqs().filter((_seq, i) => {
    const message = messages[i];
    if (message === undefined || (message.role !== "user" && message.role !== "tool")) return false;
    return message.content.some((block) => block.type === "image" && block.image.digest === digest);
  });
}

/** For a request that failed on an unreadable attachment: the logged proposal to quarantine it. */
export function quarantineProposal(surface: SurfaceManager, failure: unknown): EventInput[] {
  if (!(failure instanceof AttachmentError) || failure.digest === undefined) return [];
  const nodes = nodesReferencing(surface, failure.digest);
  if (nodes.length === 0) return [];
  return [attachmentQuarantineEvent.input({ digest: failure.digest, code: failure.code, message: failure.message, nodes })];
}

/**
 * Accepts the quarantine of an unreadable attachment: every surface node that references `digest`
 * is replaced (a logged replace per node) by the same message with a text placeholder in place of
 * the image. Earlier requests stay exactly as logged. Returns how many nodes changed.
 */
export async function acceptQuarantine(log: EventLog, surface: SurfaceManager, digest: string): Promise<number> {
  const swap = (blocks: readonly DeepReadonly<UserContent>[]): DeepReadonly<UserContent>[] =>
    blocks.map((block) =>
      block.type === "image" && block.image.digest === digest ? { type: "text", text: `[image ${digest} unavailable: quarantined]` } : block,
    );
  let replaced = 0;
  for (const seq of nodesReferencing(surface, digest)) {
    const event = log.get(seq)!;
    const range = { start: seq, end: seq };
    if (userMessageEvent.is(event)) {
      await surface.replaceGeneration(range, userMessageEvent.input({ content: swap(event.data.content), source: event.data.source }));
    } else if (toolResultEvent.is(event)) {
      const { callId, toolName, isError, source } = event.data;
      await surface.replaceGeneration(range, toolResultEvent.input({ callId, toolName, isError, source, content: swap(event.data.content) }));
    }
    replaced++;
  }
  return replaced;
}
