/**
 * An immutable view of the first `length` items of a shared array. Appending to the newest view
 * pushes onto the shared array in O(1); appending to an older view copies first, so every view
 * keeps seeing exactly what it saw.
 */
export class AppendList<T> {
  readonly #items: T[];
  readonly length: number;

  private constructor(items: T[], length: number) {
    this.#items = items;
    this.length = length;
  }

  static of<T>(items: readonly T[] = []): AppendList<T> {
    return new AppendList([...items], items.length);
  }

  append(item: T): AppendList<T> {
    const items = this.#items.length === this.length ? this.#items : this.#items.slice(0, this.length);
    items.push(item);
    return new AppendList(items, this.length + 1);
  }

  at(index: number): T | undefined {
    return index >= 0 && index < this.length ? this.#items[index] : undefined;
  }

  /**
   * Whether `prefix` is a view of this list's first items, known without reading them: both views
   * share one array and `prefix` is no longer. False says only that this could not be told.
   */
  startsWith(prefix: AppendList<T>): boolean {
    return prefix.#items === this.#items && prefix.length <= this.length;
  }

  /** The items after `prefix`'s when {@link startsWith} tells that it is this list's start, else `undefined`. */
  itemsAfter(prefix: AppendList<T>): T[] | undefined {
    return this.startsWith(prefix) ? this.#items.slice(prefix.length, this.length) : undefined;
  }

  toArray(): T[] {
    return this.#items.slice(0, this.length);
  }
}
