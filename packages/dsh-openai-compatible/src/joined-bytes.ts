/**
 * The wire bytes of a session's messages joined by commas, kept from one request to the next: a
 * request that repeats the previous one's messages and adds some copies the repeated part in one
 * piece instead of looking up and copying every message's bytes. A message whose bytes may differ
 * between requests (an image, read and verified afresh every time) is held as a place only, and its
 * bytes are written there for each request.
 */
export class JoinedBytes {
  /** The messages held, in order. */
  readonly #messages: object[] = [];
  /** Where the part of each held message starts in `#bytes`, and after them where the last one ends: a part is the comma before the message (after the first) and its bytes, if held. */
  readonly #bounds: number[] = [0];
  /** The places whose bytes are not held, ascending. */
  #open: number[] = [];
  #bytes: Buffer = Buffer.allocUnsafe(0);

  /** How many leading messages of `messages` are the ones held, in the same order. */
  sharedWith(messages: readonly object[]): number {
    const held = this.#messages;
    let count = 0;
    while (count < held.length && held[count] === messages[count]) count++;
    return count;
  }

  /** Keeps the first `count` messages held and forgets the others. */
  keep(count: number): void {
    this.#messages.length = count;
    this.#bounds.length = count + 1;
    this.#open = this.openPlaces(count);
  }

  /** Holds `message` after the others, with its `bytes`, or only its place when `bytes` is undefined. */
  push(message: object, bytes: Buffer | undefined): void {
    const index = this.#messages.length;
    const start = this.#bounds[index]!;
    // A comma before every message but the first.
    const comma = Math.min(index, 1);
    const end = start + comma + (bytes?.length ?? 0);
    if (end > this.#bytes.length) this.#grow(end);
    this.#bytes.fill(COMMA, start, start + comma);
    if (bytes === undefined) this.#open.push(index);
    else bytes.copy(this.#bytes, start + comma);
    this.#messages.push(message);
    this.#bounds.push(end);
  }

  /** The places among the first `count` whose bytes are not held, ascending. */
  openPlaces(count: number): number[] {
    return this.#open.filter((index) => index < count);
  }

  /** How many bytes the held messages take in a body, the open places filled with `openBytes`. */
  length(openBytes: readonly Buffer[]): number {
    let length = this.#bounds[this.#messages.length]!;
    for (const bytes of openBytes) length += bytes.length;
    return length;
  }

  /** Writes the held messages into `target` at `offset`, the open places filled with `openBytes` in order; returns the offset after them. */
  write(target: Buffer, offset: number, openBytes: readonly Buffer[]): number {
    let from = 0;
    let at = offset;
    for (const [i, index] of this.#open.entries()) {
      const to = this.#bounds[index + 1]!;
      at += this.#bytes.copy(target, at, from, to);
      at += openBytes[i]!.copy(target, at);
      from = to;
    }
    return at + this.#bytes.copy(target, at, from, this.#bounds[this.#messages.length]!);
  }

  #grow(needed: number): void {
    const grown = Buffer.allocUnsafe(Math.max(needed * 2, 4096));
    this.#bytes.copy(grown);
    this.#bytes = grown;
  }
}

const COMMA = 0x2c;
