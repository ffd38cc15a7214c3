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

  /** How many items are waiting. */
  get size(): number {
    return this.#items.length;
  }
}
