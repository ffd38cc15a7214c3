import type { AttachmentStore } from "dsh-attachments";
import { GeminiContents, type WireContent } from "dsh-gemini";
import type { Message } from "dsh-llm";
import { geminiPromptTokens } from "dsh-simulator";
import { commonPrefix } from "./common-prefix.js";

/**
 * A Gemini request as the cache report last measured it: its contents, kept growing, and the tokens
 * of its last content, the one a request that only adds messages may extend.
 */
export interface GeminiTail {
  readonly contents: GeminiContents;
  readonly lastTokens: Uint32Array;
}

/** The tokens of `contents` as the simulator reads them in a body (each content one segment, tokenized apart). */
function contentsTokens(contents: readonly WireContent[]): Uint32Array {
  return geminiPromptTokens({ contents: contents.map(({ role, parts }) => ({ role, parts: JSON.parse(`[${parts.join(",")}]`) as unknown })) });
}

/** The tail of a request the report measured whole (its system prompt is not a content). */
export async function geminiTailOf(messages: readonly Message[], attachments: AttachmentStore): Promise<GeminiTail> {
  const contents = await GeminiContents.of(messages, attachments);
  return { contents, lastTokens: contentsTokens(contents.contents.slice(-1)) };
}

/** `tail`'s contents once `fresh` messages join them, tokenized from its last content on, and the new tail. */
async function extendContents(tail: GeminiTail, fresh: readonly Message[]): Promise<{ readonly tail: GeminiTail; readonly changed: Uint32Array }> {
  const { contents } = tail;
  const from = contents.contents.length - 1;
  for (const message of fresh) await contents.add(message);
  return { tail: { contents, lastTokens: contentsTokens(contents.contents.slice(-1)) }, changed: contentsTokens(contents.contents.slice(from)) };
}

/**
 * A request that only adds `fresh` messages to the one measured as `tail` (whose prompt had
 * `previousTokens`): its prompt tokens and the tokens it shares with that one. Only the contents from
 * the last one on are rendered: the new messages may join it, and every content before is unchanged.
 */
export async function extendGeminiTail(tail: GeminiTail, previousTokens: number, fresh: readonly Message[]): Promise<{ readonly tail: GeminiTail; readonly promptTokens: number; readonly sharedTokens: number }> {
  const { lastTokens } = tail;
  const extended = await extendContents(tail, fresh);
  const kept = previousTokens - lastTokens.length;
  return { tail: extended.tail, promptTokens: kept + extended.changed.length, sharedTokens: kept + commonPrefix(lastTokens, extended.changed) };
}

/** The same request's prompt tokens themselves, from the previous prompt's (`previous`), rendering only as {@link extendGeminiTail} does. */
export async function extendGeminiTokens(tail: GeminiTail, previous: Uint32Array, fresh: readonly Message[]): Promise<{ readonly tail: GeminiTail; readonly tokens: Uint32Array }> {
  const kept = previous.length - tail.lastTokens.length;
  const extended = await extendContents(tail, fresh);
  const tokens = new Uint32Array(kept + extended.changed.length);
  tokens.set(previous.subarray(0, kept));
  tokens.set(extended.changed, kept);
  return { tail: extended.tail, tokens };
}
