import type { AttachmentStore } from "dsh-attachments";
import { PlacedBytes, type FrozenGenerateOptions, type JoinedBodyParts, type Message } from "dsh-llm";
import { contentRole, messageParts, modelParts } from "./parts.js";

/** The key of the session memo of frozen, image-free messages' bytes in the body's `contents`, kept with their place (see {@link place}). */
const BYTES = Symbol("gemini contents bytes");

/** Where a message's bytes stand: what opens them and, for a result, the id its call went out with (an opening holds no line break). */
function place(opening: string, callId: string | undefined): string {
  return callId === undefined ? opening : `${opening}\n${callId}`;
}

/** What a system prompt first leaves in `contents`: it is the body's `systemInstruction`. */
const NO_PARTS: readonly string[] = [];

/** What opens a content of each role: first in `contents`, or after another one. */
const OPENINGS = {
  user: { first: '{"role":"user","parts":[', next: ']},{"role":"user","parts":[' },
  model: { first: '{"role":"model","parts":[', next: ']},{"role":"model","parts":[' },
} as const;

/**
 * Whether `message` leaves parts, from its kept bytes when the memo holds them: every user message
 * and result does, an answer of only unsigned reasoning does not, and a system prompt is no content.
 */
function leavesParts(message: Message, placed: PlacedBytes): boolean {
  const kept = placed.kept(message);
  if (kept !== undefined) return kept.bytes.length > 0;
  return message.role === "assistant" ? modelParts(message.content).length > 0 : message.role !== "system";
}

/** The last message before `index` that leaves parts, if any. */
function lastWithParts(messages: readonly Message[], index: number, placed: PlacedBytes): Message | undefined {
  for (let before = index - 1; before >= 0; before--) if (leavesParts(messages[before]!, placed)) return messages[before];
  return undefined;
}

/** The id the call that the result at `index` answers went out with: the last call of its id before it (none when Gemini gave none, or for another message). */
function callIdOf(messages: readonly Message[], index: number): string | undefined {
  const message = messages[index]!;
  if (message.role !== "tool") return undefined;
  for (let before = index - 1; before >= 0; before--) {
    const answer = messages[before]!;
    if (answer.role !== "assistant") continue;
    for (let block = answer.content.length - 1; block >= 0; block--) {
      const call = answer.content[block]!;
      if (call.type === "tool-call" && call.callId === message.callId) return call.itemId;
    }
  }
  return undefined;
}

/**
 * How {@link joinedBody} gets the bytes of `request`'s messages in the body's `contents`: each
 * message's parts with what opens them (nothing when it leaves none, a comma when it joins the
 * content before, else a new content), kept per session for a frozen, image-free message while it
 * opens the same way. A system prompt first leaves nothing here.
 */
export function contentsParts(request: FrozenGenerateOptions, attachments: AttachmentStore | undefined): Omit<JoinedBodyParts, "head" | "tail"> {
  const { messages } = request;
  const start = messages[0]?.role === "system" ? 1 : 0;
  const placed = new PlacedBytes(request, BYTES);
  const opening = (index: number, leaves: boolean): string => {
    if (!leaves) return "";
    const open = OPENINGS[contentRole(messages[index]!)];
    const before = lastWithParts(messages, index, placed);
    if (before === undefined) return open.first;
    return contentRole(before) === contentRole(messages[index]!) ? "," : open.next;
  };
  const made = async (message: Message, index: number): Promise<Buffer> => {
    const callId = callIdOf(messages, index);
    const own = index < start ? NO_PARTS : await messageParts(message, index - start, message.role === "tool" ? new Map([[message.callId, callId]]) : new Map(), attachments);
    const open = opening(index, own.length > 0);
    const bytes = Buffer.from(open + own.join(","));
    placed.keep(message, place(open, callId), bytes);
    return bytes;
  };
  return {
    key: BYTES,
    separator: "",
    cached: (index) => {
      const kept = placed.kept(messages[index]!);
      return kept !== undefined && kept.place === place(opening(index, kept.bytes.length > 0), callIdOf(messages, index)) ? kept.bytes : undefined;
    },
    serialize: (index) => made(messages[index]!, index),
  };
}

/** Whether any message of `request` (a system prompt first aside) leaves parts: Gemini needs at least one content. */
export function hasContents(request: FrozenGenerateOptions): boolean {
  const { messages } = request;
  return lastWithParts(messages, messages.length, new PlacedBytes(request, BYTES)) !== undefined;
}
