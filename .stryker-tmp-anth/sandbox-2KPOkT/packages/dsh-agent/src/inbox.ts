import type { DeepReadonly, UserContent } from "dsh-llm";
import { toContent, type ContentInput } from "./tools.js";

/** A value waiting to enter a step as a `user/message`. */
export interface InboxItem {
  readonly content: readonly DeepReadonly<UserContent>[];
  readonly source: string;
}

/** Queued model-visible context. A step claims everything queued at once; later values wait for a later step. */
export class Inbox {
  #items: InboxItem[] = [];

  /** An inbox holding `items`, oldest first. */
  static of(items: readonly InboxItem[]): Inbox {
    const inbox = new Inbox();
    inbox.#items = [...items];
    return inbox;
  }

  /** Queues content with its source. */
  push(content: ContentInput, source: string): void {
    this.#items.push({ content: toContent(content), source });
  }

  /** Takes every queued item atomically. */
  claim(): InboxItem[] {
    const claimed = this.#items;
    this.#items = [];
    return claimed;
  }

  /** Puts a claimed batch back in front (when no step opened for it). */
  restore(batch: readonly InboxItem[]): void {
    this.#items = [...batch, ...this.#items];
  }

  /** The items waiting, oldest first, without claiming them. */
  peek(): readonly InboxItem[] {
    return this.#items;
  }

  /** How many items are waiting. */
  get size(): number {
    return this.#items.length;
  }
}
