import { requestJoinedBytes, type FrozenGenerateOptions } from "./request.js";

/** How an adapter's messages become bytes, for {@link joinedBody}: each message's bytes on their own, and whether they may be kept. */
export interface JoinedBodyParts {
  /** The memo key of the adapter's per-message bytes (one per wire format): the joined bytes are kept beside that memo. */
  readonly key: symbol;
  /** What goes between two messages' non-empty bytes (a comma unless given; nothing for bytes that carry their own). */
  readonly separator?: string | undefined;
  /** What comes before the messages' bytes in the body. */
  readonly head: Buffer;
  /** What comes after them. */
  readonly tail: Buffer;
  /** The places whose bytes this request makes afresh although they may be kept at other places (a breakpoint's), if any. */
  readonly marked?: readonly number[] | undefined;
  /** The kept bytes of the message at `index` when they hold at that place in this request; none when they must be made afresh. */
  cached(index: number): Buffer | undefined;
  /** The bytes of the message at `index`, made afresh (and kept by the adapter when they may be reused). */
  serialize(index: number): Promise<Buffer>;
}

/**
 * A request body for adapters that serialize each message on its own: `head`, the messages' bytes
 * joined by commas or the parts' `separator` (empty ones left out), `tail`. Per session, the joined
 * bytes of the last request are kept, so the part a request repeats from the one before is copied
 * in one piece and only what is new is looked up; bytes that are not kept (an image, a marked
 * message) are made afresh at every request. The caller owns the returned buffer.
 */
export async function joinedBody(request: FrozenGenerateOptions, parts: JoinedBodyParts): Promise<Buffer> {
  const joined = requestJoinedBytes(request, parts.key, parts.separator);
  const { messages } = request;
  // Starts where the messages stop being shared, or earlier: at an open place whose bytes may now be
  // kept, or at a held place that this request marks.
  const shared = joined.sharedWith(messages);
  const open = joined.openPlaces(shared);
  const from = Math.min(shared, ...open.filter((index) => parts.cached(index) !== undefined), ...(parts.marked ?? []).filter((index) => !open.includes(index)));
  const made = new Map<number, Buffer>();
  for (const index of joined.openPlaces(from)) made.set(index, await parts.serialize(index));
  const fresh: Buffer[] = [];
  for (let index = from; index < messages.length; index++) fresh.push(parts.cached(index) ?? (await parts.serialize(index)));
  // From here on nothing awaits, so no other serialization of the session changes the joined bytes
  // under this one. One that did while this one awaited may have left fewer of them shared, or other
  // places open or kept (it marked other messages, or kept a message this one marks): then start again.
  const openBefore = joined.openPlaces(from);
  if (joined.sharedWith(messages) < from || openBefore.length !== made.size || openBefore.some((index) => !made.has(index))) return joinedBody(request, parts);
  const given = openBefore.map((index) => made.get(index)!);
  joined.keep(from);
  for (let index = from; index < messages.length; index++) {
    const bytes = fresh[index - from]!;
    const kept = parts.cached(index) === bytes;
    joined.push(messages[index]!, kept ? bytes : undefined);
    if (!kept) given.push(bytes);
  }
  const body = Buffer.allocUnsafe(parts.head.length + joined.length(given) + parts.tail.length);
  const at = joined.write(body, parts.head.copy(body, 0), given);
  parts.tail.copy(body, at);
  return body;
}
