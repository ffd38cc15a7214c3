import type { LogEvent } from "./event.js";

/**
 * The events of `chunks` one at a time, taking the next chunk only once the one before is used up
 * (so a parser behind `chunks` meets a fault no sooner than a generator's `yield*` would). A plain
 * iterator, because resuming a generator once per event cost as much as a fifth of admitting it.
 */
export function flatEvents(chunks: Iterator<readonly LogEvent[]>): IterableIterator<LogEvent> {
  return new FlatEvents(chunks);
}

class FlatEvents implements IterableIterator<LogEvent> {
  readonly #chunks: Iterator<readonly LogEvent[]>;
  #chunk: readonly LogEvent[] = [];
  #next = 0;

  constructor(chunks: Iterator<readonly LogEvent[]>) {
    this.#chunks = chunks;
  }

  [Symbol.iterator](): IterableIterator<LogEvent> {
    return this;
  }

  next(): IteratorResult<LogEvent, undefined> {
    while (this.#next === this.#chunk.length) {
      const taken = this.#chunks.next();
      if (taken.done === true) return { done: true, value: undefined };
      this.#chunk = taken.value;
      this.#next = 0;
    }
    return { done: false, value: this.#chunk[this.#next++]! };
  }

  /** Closes the chunks too when a consumer stops early (a refused event ends a `for…of`), as `yield*` would. */
  return(): IteratorResult<LogEvent, undefined> {
    this.#chunk = [];
    this.#next = 0;
    this.#chunks.return?.();
    return { done: true, value: undefined };
  }
}
