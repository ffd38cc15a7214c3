/**
 * The wire bytes of a session's messages joined by a separator (a comma unless given), kept from one
 * request to the next: a request that repeats the previous one's messages and adds some copies the repeated part in one
 * piece instead of looking up and copying every message's bytes. A message whose bytes may differ
 * between requests (an image, read and verified afresh; a message marked with a breakpoint) is held
 * as a place only, and its bytes are given at each write.
 *
 * Each message is a part: the separator and its bytes, or nothing when its bytes are empty (a message
 * that adds no item); the joined bytes are the parts without the first separator.
 */
export class JoinedBytes {
  readonly #separator: Buffer;
  /** The messages held, in order. */
  readonly #messages: object[] = [];
  /** Where each held message's part starts in `#bytes`, and after them where the last one ends. */
  readonly #bounds: number[] = [0];
  /** The places whose bytes are given at each write, ascending. */
  #open: number[] = [];
  #bytes: Buffer = Buffer.allocUnsafe(0);

  /** `separator` goes between two messages' bytes: a comma for messages that are array items, nothing for bytes that carry their own. */
  constructor(separator = ",") {
    this.#separator = Buffer.from(separator);
  }

  /** How many leading messages of `messages` are the ones held, in the same order. */
  sharedWith(messages: readonly object[]): number {
    const held = this.#messages;
    let count = 0;
    while (count < held.length && held[count] === messages[count]) count++;
    return count;
  }

  /** The places among the first `count` whose bytes are given at each write, ascending. */
  openPlaces(count: number): number[] {
    return this.#open.filter((index) => index < count);
  }

  /** Keeps the first `count` messages held and forgets the others. */
  keep(count: number): void {
    this.#messages.length = count;
    this.#bounds.length = count + 1;
    this.#open = this.openPlaces(count);
  }

  /** Holds `message` after the others, with its `bytes`, or only its place when `bytes` is undefined. */
  push(message: object, bytes: Buffer | undefined): void {
    const start = this.#bounds[this.#messages.length]!;
    const end = bytes === undefined || bytes.length === 0 ? start : start + this.#separator.length + bytes.length;
    if (end > this.#bytes.length) this.#grow(end);
    if (bytes === undefined) this.#open.push(this.#messages.length);
    else if (end > start) {
      // The separator before non-empty bytes; nothing for empty ones.
      this.#separator.copy(this.#bytes, start);
      bytes.copy(this.#bytes, end - bytes.length);
    }
    this.#messages.push(message);
    this.#bounds.push(end);
  }

  /** How many bytes {@link write} writes with these bytes at the open places. */
  length(given: readonly Buffer[]): number {
    let length = this.#bounds[this.#messages.length]!;
    for (const bytes of given) if (bytes.length > 0) length += this.#separator.length + bytes.length;
    return Math.max(0, length - this.#separator.length);
  }

  /** Writes the joined bytes into `target` at `offset`, `given` at the open places in order; returns the offset after them. */
  write(target: Buffer, offset: number, given: readonly Buffer[]): number {
    let at = offset;
    let first = true;
    // Copies a slice, the first separator of all left out.
    const put = (source: Buffer, start: number, end: number): void => {
      if (end === start) return;
      at += source.copy(target, at, first ? start + this.#separator.length : start, end);
      first = false;
    };
    let from = 0;
    for (const [i, index] of this.#open.entries()) {
      const to = this.#bounds[index]!;
      put(this.#bytes, from, to);
      put(this.#separator, 0, given[i]!.length === 0 ? 0 : this.#separator.length);
      put(given[i]!, 0, given[i]!.length);
      from = to;
    }
    put(this.#bytes, from, this.#bounds[this.#messages.length]!);
    return at;
  }

  #grow(needed: number): void {
    const grown = Buffer.allocUnsafe(Math.max(needed * 2, 4096));
    this.#bytes.copy(grown);
    this.#bytes = grown;
  }
}
