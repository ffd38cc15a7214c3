/** A tool call of an assistant message: its id and the tool it names. */
export interface ToolCallRef {
  readonly callId: string;
  readonly name: string;
}

/**
 * The tool calls of the last assistant message still awaiting results, as an immutable value.
 * Results usually come in call order, which costs O(1) each; a result out of order is remembered
 * until the calls before it are answered.
 */
export class OpenCalls {
  static readonly none = new OpenCalls([], 0, []);

  readonly #calls: readonly ToolCallRef[];
  /** The index of the first call not answered. */
  readonly #next: number;
  /** Ids of calls after `#next` already answered. */
  readonly #ahead: readonly string[];

  private constructor(calls: readonly ToolCallRef[], next: number, ahead: readonly string[]) {
    this.#calls = calls;
    this.#next = next;
    this.#ahead = ahead;
  }

  /** All of `calls` open. */
  static of(calls: readonly ToolCallRef[]): OpenCalls {
    return calls.length === 0 ? OpenCalls.none : new OpenCalls(calls, 0, []);
  }

  /** How many calls still await a result. */
  get length(): number {
    return this.#calls.length - this.#next - this.#ahead.length;
  }

  /** The open call with `callId`, if there is one. */
  find(callId: string): ToolCallRef | undefined {
    const first = this.#calls[this.#next];
    if (first?.callId === callId) return first;
    if (this.#ahead.includes(callId)) return undefined;
    for (let i = this.#next + 1; i < this.#calls.length; i++) if (this.#calls[i]!.callId === callId) return this.#calls[i];
    return undefined;
  }

  /** These open calls without `callId`, which must be one of them ({@link find}). */
  answer(callId: string): OpenCalls {
    if (this.#calls[this.#next]!.callId !== callId) return new OpenCalls(this.#calls, this.#next, [...this.#ahead, callId]);
    let next = this.#next + 1;
    let ahead = this.#ahead;
    while (next < this.#calls.length && ahead.includes(this.#calls[next]!.callId)) {
      const id = this.#calls[next]!.callId;
      ahead = ahead.filter((answered) => answered !== id);
      next++;
    }
    return next === this.#calls.length ? OpenCalls.none : new OpenCalls(this.#calls, next, ahead);
  }

  /** The open calls, in call order. */
  toArray(): ToolCallRef[] {
    return this.#calls.slice(this.#next).filter((call) => !this.#ahead.includes(call.callId));
  }
}
