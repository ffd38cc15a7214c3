import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { joinedBody } from "./joined-body.js";
import type { Message } from "./messages.js";
import { RequestFreezer, requestMemo, type FrozenGenerateOptions } from "./request.js";

const KEY = Symbol("test bytes");
const config = { provider: "p", model: "m" };

/** A message whose bytes are its text; a text that starts with `!` is made afresh every time, like an image. */
const message = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], source: "user" });
const textOf = (m: Message) => (m.content as readonly { readonly text: string }[])[0]!.text;

/** An adapter's parts for `request`: marked places are made afresh and never kept; `wait` runs before every fresh serialization. */
function parts(request: FrozenGenerateOptions, marks: ReadonlySet<number>, made: Message[], wait: () => Promise<unknown> = async () => undefined, separator?: string) {
  const memo = requestMemo<Buffer>(request, KEY);
  const { messages } = request;
  return {
    key: KEY,
    ...(separator === undefined ? {} : { separator }),
    ...(marks.size > 0 ? { marked: [...marks] } : {}),
    head: Buffer.from("["),
    tail: Buffer.from("]"),
    cached: (index: number) => (marks.has(index) ? undefined : memo?.get(messages[index]!)),
    serialize: async (index: number) => {
      await wait();
      const m = messages[index]!;
      made.push(m);
      const bytes = Buffer.from(marks.has(index) ? `${textOf(m)}*` : textOf(m));
      if (!marks.has(index) && !textOf(m).startsWith("!")) memo?.set(m, bytes);
      return bytes;
    },
  };
}

/** The body a straightforward join writes. */
function expected(request: FrozenGenerateOptions, marks: ReadonlySet<number>, separator = ","): string {
  const each = request.messages.map((m, index) => (marks.has(index) ? `${textOf(m)}*` : textOf(m)));
  return `[${each.filter((text) => text !== "").join(separator)}]`;
}

const text = fc.oneof(fc.constant(""), fc.constant("!v"), fc.string({ minLength: 1, maxLength: 4 }));
/** A step of a session: new messages after the last request's, or a compaction that keeps some of them first, and this request's marks. */
const step = fc.record({ from: fc.nat(4), count: fc.nat(6), compact: fc.boolean(), added: fc.array(text, { maxLength: 3 }), marks: fc.uniqueArray(fc.nat(9), { maxLength: 3 }) });

describe("joinedBody", () => {
  it("writes what a straightforward join writes at every request of a session, through growth, compaction and moving marks", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 7 }), fc.constantFrom(undefined, "", "; "), async (steps, separator) => {
        const freezer = new RequestFreezer();
        const made: Message[] = [];
        let history: Message[] = [message("s")];
        for (const { from, count, compact, added, marks } of steps) {
          history = [...(compact ? history.slice(from, from + count) : history), ...added.map(message)];
          if (history.length === 0) history = [message("s")];
          const request = freezer.freeze({ config, messages: history });
          const marked = new Set(marks);
          const body = () => joinedBody(request, parts(request, marked, made, undefined, separator));
          for (let round = 0; round < 2; round++) expect((await body()).toString()).toBe(expected(request, marked, separator));
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("makes each kept message's bytes once per session, however many requests repeat it", async () => {
    const freezer = new RequestFreezer();
    const made: Message[] = [];
    const first = freezer.freeze({ config, messages: [message("a"), message(""), message("!b")] });
    const second = freezer.freeze({ config, messages: [...first.messages, message("c")] });
    for (const request of [first, second, first, second, second]) expect((await joinedBody(request, parts(request, new Set(), made))).toString()).toBe(expected(request, new Set()));
    expect(made.map(textOf)).toEqual(["a", "", "!b", "!b", "c", "!b", "!b", "!b"]);
  });

  it("makes a marked message afresh at each request, and keeps it once it is no longer marked", async () => {
    const freezer = new RequestFreezer();
    const made: Message[] = [];
    const first = freezer.freeze({ config, messages: [message("a"), message("b")] });
    const second = freezer.freeze({ config, messages: [...first.messages, message("c")] });
    expect((await joinedBody(first, parts(first, new Set([1]), made))).toString()).toBe("[a,b*]");
    expect((await joinedBody(second, parts(second, new Set([2]), made))).toString()).toBe("[a,b,c*]");
    expect((await joinedBody(second, parts(second, new Set([2]), made))).toString()).toBe("[a,b,c*]");
    expect((await joinedBody(second, parts(second, new Set(), made))).toString()).toBe("[a,b,c]");
    expect((await joinedBody(second, parts(second, new Set(), made))).toString()).toBe("[a,b,c]");
    expect(made.map(textOf)).toEqual(["a", "b", "b", "c", "c", "c"]);
  });

  it("looks up only the new messages and the places that are not kept, however long the history", async () => {
    const freezer = new RequestFreezer();
    const history = [message("s"), message("!v"), ...Array.from({ length: 200 }, (_, i) => message(`m${i}`))];
    const first = freezer.freeze({ config, messages: history });
    const second = freezer.freeze({ config, messages: [...history, message("n1"), message("n2")] });
    const third = freezer.freeze({ config, messages: [...second.messages, message("n3")] });
    let lookups = 0;
    const counted = (request: FrozenGenerateOptions, marks: ReadonlySet<number>) => {
      const inner = parts(request, marks, []);
      return { ...inner, cached: (index: number) => (lookups++, inner.cached(index)) };
    };
    await joinedBody(first, counted(first, new Set([0])));
    lookups = 0;
    // The open places (the mark on the first message, the message made afresh) once each, then two new messages twice each.
    expect((await joinedBody(second, counted(second, new Set([0])))).toString()).toBe(expected(second, new Set([0])));
    expect(lookups).toBe(2 + 2 * 2);
    lookups = 0;
    // The mark moves off the first message: made afresh once more (and kept by the adapter), then
    // joined again from there, the whole history looked up once; after that, the new message only.
    expect((await joinedBody(third, counted(third, new Set()))).toString()).toBe(expected(third, new Set()));
    expect(lookups).toBe(2 + 1 * 2);
    lookups = 0;
    expect((await joinedBody(third, counted(third, new Set()))).toString()).toBe(expected(third, new Set()));
    expect(lookups).toBe(2 + 205 * 2);
    lookups = 0;
    const fourth = freezer.freeze({ config, messages: [...third.messages, message("n4")] });
    expect((await joinedBody(fourth, counted(fourth, new Set()))).toString()).toBe(expected(fourth, new Set()));
    expect(lookups).toBe(1 + 1 * 2);
  });

  it("joins a request that no freezer froze afresh each time", async () => {
    const request = { config, messages: [message("a"), message("b")] } as unknown as FrozenGenerateOptions;
    const made: Message[] = [];
    expect((await joinedBody(request, parts(request, new Set(), made))).toString()).toBe("[a,b]");
    expect((await joinedBody(request, parts(request, new Set(), made))).toString()).toBe("[a,b]");
    expect(made).toHaveLength(4);
  });

  it("gives serializations of one session in flight at once their own bytes, in any order of their awaits and whatever each marks", async () => {
    const branch = fc.array(text, { minLength: 1, maxLength: 3 });
    const marks = fc.uniqueArray(fc.nat(7), { maxLength: 3 }).map((list) => new Set(list));
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(text, { maxLength: 3 }), branch, marks, fc.array(fc.tuple(branch, marks), { minLength: 1, maxLength: 3 }), branch, marks, async (s, history, first, firstMarks, others, more, moreMarks) => {
        const freezer = new RequestFreezer();
        const shared = [message("s"), message("!v"), ...history.map(message)];
        const warmed = freezer.freeze({ config, messages: [...shared, ...first.map(message)] });
        await joinedBody(warmed, parts(warmed, firstMarks, []));
        // One goes on from the warmed request, the others diverge after the shared part, each with its
        // own marks; every fresh serialization awaits a step the scheduler orders, so any may finish first.
        const requests: [FrozenGenerateOptions, ReadonlySet<number>][] = [
          [freezer.freeze({ config, messages: [...warmed.messages, ...more.map(message)] }), moreMarks],
          ...others.map(([tail, marked]): [FrozenGenerateOptions, ReadonlySet<number>] => [freezer.freeze({ config, messages: [...shared, ...tail.map(message)] }), marked]),
        ];
        const bodies = Promise.all(requests.map(([request, marked]) => joinedBody(request, parts(request, marked, [], () => s.schedule(Promise.resolve())))));
        expect((await s.waitFor(bodies)).map(String)).toEqual(requests.map(([request, marked]) => expected(request, marked)));
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 100) },
    );
  });
});
