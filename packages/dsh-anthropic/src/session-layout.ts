import type { AttachmentStore } from "dsh-attachments";
import { mayKeep, requestMemo, type FrozenGenerateOptions, type Message } from "dsh-llm";
import { extendIndexed, layoutWith, messageBlocks, type BlocksOf, type IndexedLayout, type LaidMessage } from "./blocks.js";

/** The key of the session memo of each frozen, image-free message laid out: a message never changes, so it is laid out once per session. */
const LAID = Symbol("messages laid out");

/**
 * How one request gets each message's blocks: from its session's memo when kept there, else laid
 * out afresh once for the request (kept in the memo when it may be; an image is read once a request).
 */
export function requestBlocks(request: FrozenGenerateOptions, attachments: AttachmentStore | undefined): BlocksOf {
  const memo = requestMemo<LaidMessage>(request, LAID);
  const fresh = new Map<Message, Promise<LaidMessage>>();
  return (message) => {
    const kept = memo?.get(message) ?? fresh.get(message);
    if (kept !== undefined) return kept;
    const laid = layOut(message, attachments, memo);
    fresh.set(message, laid);
    return laid;
  };
}

async function layOut(message: Message, attachments: AttachmentStore | undefined, memo: Map<object, LaidMessage> | undefined): Promise<LaidMessage> {
  const laid = await messageBlocks(message, attachments);
  if (memo !== undefined && mayKeep(message)) memo.set(message, laid);
  return laid;
}

/** The key of the session memo of the layout of its last request, kept under its first message. */
const LAYOUT = Symbol("messages layout");

/** A session's last layout, with the messages and tools it was made of. */
interface KeptLayout extends IndexedLayout {
  readonly messages: readonly Message[];
  readonly tools: FrozenGenerateOptions["tools"];
}

/**
 * The layout of `request`, laying out only what it adds to its session's last request when it
 * repeats that request's tools and first messages (a compaction that keeps the first message
 * lays out what follows the messages kept in place).
 */
export async function sessionLayout(request: FrozenGenerateOptions, blocksOf: BlocksOf): Promise<IndexedLayout> {
  const { messages, tools } = request;
  const memo = requestMemo<KeptLayout>(request, LAYOUT);
  const kept = memo?.get(messages[0]!);
  let shared = 0;
  if (kept !== undefined && kept.tools === tools) while (shared < kept.messages.length && kept.messages[shared] === messages[shared]) shared++;
  const indexed = shared > 0 ? await extendIndexed(kept!, messages, shared, blocksOf) : await layoutWith(messages, tools, blocksOf);
  memo?.set(messages[0]!, { ...indexed, messages, tools });
  return indexed;
}
