import type { AttachmentStore } from "dsh-attachments";
import { GeminiContents, type WireContent } from "dsh-gemini";
import type { Message } from "dsh-llm";
import { geminiPromptTokens } from "dsh-simulator";
import { commonPrefix } from "./tokenized.js";

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

/**
 * A request that only adds `fresh` messages to the one measured as `tail` (whose prompt had
 * `previousTokens`): its prompt tokens and the tokens it shares with that one. Only the contents from
 * the last one on are rendered: the new messages may join it, and every content before is unchanged.
 */
export async function extendGeminiTail(tail: GeminiTail, previousTokens: number, fresh: readonly Message[]): Promise<{ readonly tail: GeminiTail; readonly promptTokens: number; readonly sharedTokens: number }> {
  const { contents, lastTokens } = tail;
  const from = contents.contents.length - 1;
  for (const message of fresh) await contents.add(message);
  const changed = contentsTokens(contents.contents.slice(from));
  const kept = previousTokens - lastTokens.length;
  return {
    tail: { contents, lastTokens: contentsTokens(contents.contents.slice(-1)) },
    promptTokens: kept + changed.length,
    sharedTokens: kept + commonPrefix(lastTokens, changed),
  };
}
