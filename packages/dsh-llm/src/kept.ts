import { holdsImage } from "./images.js";
import type { Message } from "./messages.js";
import { requestMemo, type FrozenGenerateOptions } from "./request.js";

/**
 * Whether what an adapter makes of `message` (its wire bytes, its layout) may be kept per session:
 * the message is frozen, so it cannot change under what was made of it, and holds no image, which
 * is read and verified afresh at every request.
 */
export function mayKeep(message: Message): boolean {
  return Object.isFrozen(message) && !holdsImage(message);
}

/** A message's bytes as {@link PlacedBytes} keeps them, with the place they were made for. */
export interface PlacedBytesEntry {
  readonly place: string;
  readonly bytes: Buffer;
}

/**
 * A session's kept bytes of messages whose bytes depend on where a message stands as well as on the
 * message (what opens it, the id its call went out with): each kept with a string naming that place,
 * and reused only at the same place.
 */
export class PlacedBytes {
  readonly #memo: Map<object, PlacedBytesEntry> | undefined;

  /** The bytes kept in the memo `key` of the session whose freezer froze `request`; none, and none kept, for a request frozen otherwise. */
  constructor(request: FrozenGenerateOptions, key: symbol) {
    this.#memo = requestMemo<PlacedBytesEntry>(request, key);
  }

  /** What is kept of `message`, whatever place it was made for. */
  kept(message: Message): PlacedBytesEntry | undefined {
    return this.#memo?.get(message);
  }

  /** The kept bytes of `message` when they were made for `place`. */
  at(message: Message, place: string): Buffer | undefined {
    const kept = this.#memo?.get(message);
    return kept?.place === place ? kept.bytes : undefined;
  }

  /** Keeps `bytes`, made for `message` at `place`, when the message may be kept ({@link mayKeep}). */
  keep(message: Message, place: string, bytes: Buffer): void {
    if (this.#memo !== undefined && mayKeep(message)) this.#memo.set(message, { place, bytes });
  }
}
