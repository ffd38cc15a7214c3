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

/** The attachment store methods a serializer calls, with the digest type of the store. */
interface ReadableStore<D> {
  put(bytes: Uint8Array): Promise<D>;
  get(digest: D): Promise<Uint8Array>;
  has(digest: D): Promise<boolean>;
}

/** `store` whose every read first awaits a step that `scheduler` orders: serializations in flight at once then finish in every order. */
export function scheduledReads<D>(store: ReadableStore<D>, scheduler: fc.Scheduler): ReadableStore<D> {
  return {
    put: (bytes) => store.put(bytes),
    has: (digest) => store.has(digest),
    get: async (digest) => {
      await scheduler.schedule(Promise.resolve());
      return store.get(digest);
    },
  };
}

/** How {@link bodiesInFlight} makes and serializes a session's requests. */
export interface InFlightSession<M, R> {
  /** A request of the session (one freezer for all of them). */
  readonly session: (messages: M[]) => R;
  /** A request of the same messages frozen alone. */
  readonly alone: (messages: M[]) => R;
  /** Its body; `scheduled` when the reads it makes must await the scheduler. */
  readonly serialize: (request: R, scheduled: boolean) => Promise<string>;
}

/**
 * Serializes `base`, then the requests of `base` followed by each branch at once, in flight in one
 * session while `scheduler` orders their reads, and the same requests frozen alone: a serializer that
 * keeps state per session must give the two lists the same bodies.
 */
export async function bodiesInFlight<M, R>(scheduler: fc.Scheduler, base: readonly M[], branches: readonly (readonly M[])[], made: InFlightSession<M, R>): Promise<{ inFlight: string[]; alone: string[] }> {
  await made.serialize(made.session([...base]), false);
  const lists = branches.map((branch) => [...base, ...branch]);
  const requests = lists.map((messages) => made.session(messages));
  const inFlight = await scheduler.waitFor(Promise.all(requests.map((request) => made.serialize(request, true))));
  const alone = await Promise.all(lists.map((messages) => made.serialize(made.alone(messages), false)));
  return { inFlight, alone };
}
