import { truncateText } from "dsh-base";
import { AttachmentError } from "dsh-attachments";
import type { DeepReadonly, UserContent } from "dsh-llm";
import type { EventInput, EventLog } from "dsh-log";
import { toolResultEvent, userMessageEvent, type ReplacementInput, type SurfaceManager, type SurfaceRange } from "dsh-surface";
import type { TrimOptions } from "./compaction.js";
import { attachmentQuarantineEvent } from "./events.js";

/** The source of a trimmed tool result; a result with it is never trimmed again. */
const TRIM_SOURCE = "trim";

type Replacement = { readonly range: SurfaceRange; readonly replacement: ReplacementInput };

/**
 * Trims old tool results in one batch: each result outside the `keepRecent` most recent nodes whose
 * text is longer than `maxChars` is replaced, as a single-entry replace of the same call, by a short
 * placeholder. Idempotent: a trimmed result is never trimmed again. Returns how many were trimmed.
 */
export async function trimToolResults(log: EventLog, surface: SurfaceManager, options: TrimOptions = {}): Promise<number> {
  const maxChars = options.maxChars ?? 2000;
  const nodes = surface.state.nodes.toArray();
  const replacements: Replacement[] = [];
  for (const node of nodes.slice(0, Math.max(0, nodes.length - (options.keepRecent ?? 4)))) {
    const event = log.get(node.seq);
    if (event === undefined || !toolResultEvent.is(event) || event.data.source === TRIM_SOURCE) continue;
    const text = event.data.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    if (text.length <= maxChars) continue;
    const { callId, toolName, isError } = event.data;
    // Cut between characters: half of one in the log would make every later request unsendable.
    const placeholder = `[trimmed: ${text.length} characters]\n${truncateText(text, 200)}`;
    replacements.push({
      range: { start: node.seq, end: node.seq },
      replacement: toolResultEvent.input({ callId, toolName, isError, content: [{ type: "text", text: placeholder }], source: TRIM_SOURCE }),
    });
  }
  if (replacements.length > 0) await log.append(surface.replaceInputs(replacements));
  return replacements.length;
}

/** Seqs of the current surface nodes whose content references the object `digest`. */
function nodesReferencing(surface: SurfaceManager, digest: string): number[] {
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
 * is replaced, in one batch, by the same message with a text placeholder in place of the image.
 * Earlier requests stay exactly as logged. Returns how many nodes changed.
 */
export async function acceptQuarantine(log: EventLog, surface: SurfaceManager, digest: string): Promise<number> {
  const swap = (blocks: readonly DeepReadonly<UserContent>[]): DeepReadonly<UserContent>[] =>
    blocks.map((block) =>
      block.type === "image" && block.image.digest === digest ? { type: "text", text: `[image ${digest} unavailable: quarantined]` } : block,
    );
  const replacements: Replacement[] = [];
  for (const seq of nodesReferencing(surface, digest)) {
    const event = log.get(seq)!;
    const range = { start: seq, end: seq };
    if (userMessageEvent.is(event)) {
      replacements.push({ range, replacement: userMessageEvent.input({ content: swap(event.data.content), source: event.data.source }) });
    } else if (toolResultEvent.is(event)) {
      const { callId, toolName, isError, source } = event.data;
      replacements.push({ range, replacement: toolResultEvent.input({ callId, toolName, isError, source, content: swap(event.data.content) }) });
    }
  }
  if (replacements.length > 0) await log.append(surface.replaceInputs(replacements));
  return replacements.length;
}
