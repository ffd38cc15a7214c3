import fc from "fast-check";

/** A step of a made-up session: new messages after the last request's, after a compaction that keeps `count` of them from `from` on (the system prompt stays) when `compact`. */
export interface SessionStep<M> {
  readonly from: number;
  readonly count: number;
  readonly compact: boolean;
  /** The new messages; `"image"` stands for one with an image, which the test makes. */
  readonly added: readonly (M | "image")[];
}

/** One to six steps of a session whose new messages come from `message`, at most `maxAdded` a step. */
export function sessionSteps<M>(message: fc.Arbitrary<M | "image">, maxAdded = 3): fc.Arbitrary<SessionStep<M>[]> {
  const step = fc.record({ from: fc.nat(4), count: fc.nat(6), compact: fc.boolean(), added: fc.array(message, { maxLength: maxAdded }) });
  return fc.array(step, { minLength: 1, maxLength: 6 });
}

/** The history after `step`: each new message a fresh copy, `"image"` one that `image` makes. */
export function nextHistory<M>(history: readonly M[], step: SessionStep<M>, image: () => M): M[] {
  const kept = step.compact ? [history[0]!, ...history.slice(1 + step.from, 1 + step.from + step.count)] : history;
  return [...kept, ...step.added.map((message) => (message === "image" ? image() : structuredClone(message)))];
}

/** A user message of one text block that counts each read of its text: a serializer that reuses its bytes reads it no more. */
export function readCounter(): { message(text: string): { role: "user"; content: { type: "text"; readonly text: string }[]; source: string }; readonly reads: number } {
  let reads = 0;
  return {
    message: (text) => ({
      role: "user",
      content: [
        {
          type: "text",
          get text() {
            reads++;
            return text;
          },
        },
      ],
      source: "user",
    }),
    get reads() {
      return reads;
    },
  };
}

/** A deep-frozen user message of one text block, as a freezer would leave it, for a request that no freezer froze. */
export function frozenUserMessage(text: string): { readonly role: "user"; readonly content: readonly { readonly type: "text"; readonly text: string }[]; readonly source: string } {
  return Object.freeze({ role: "user" as const, content: Object.freeze([Object.freeze({ type: "text" as const, text })]), source: "user" });
}
