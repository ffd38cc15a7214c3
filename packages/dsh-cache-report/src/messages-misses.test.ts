import { renderMessagesPrompt } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { MessagesMissExplainer, type MessagesPrompt } from "./messages-misses.js";

const long = "Enough words to pass the minimum cacheable length of the model. ".repeat(150);
const mark = { type: "ephemeral", ttl: "5m" };

/** A prompt of the system prompt and `count` user blocks, with markers on the given block indexes (0 is the system prompt). */
function prompt(count: number, marks: readonly number[], time: number, system = long, model = "claude-sonnet-4-6"): MessagesPrompt {
  const block = (text: string, i: number) => ({ type: "text", text, ...(marks.includes(i) ? { cache_control: mark } : {}) });
  const body = { model, system: [block(system, 0)], messages: [{ role: "user", content: Array.from({ length: count }, (_, i) => block(`turn ${i}`, i + 1)) }] };
  return { blocks: renderMessagesPrompt(body), model, time };
}

/** The reasons for the second prompt, after the first. */
function explain(first: MessagesPrompt, second: MessagesPrompt): string[] {
  const explainer = new MessagesMissExplainer();
  expect(explainer.next(first, 0)).toEqual([]);
  const stable = first.blocks.at(-1)!.cumulativeTokens;
  return explainer.next(second, stable);
}

describe("MessagesMissExplainer", () => {
  it("finds nothing to explain when the request reads what the previous one wrote", () => {
    expect(explain(prompt(1, [0, 1], 0), prompt(2, [0, 1, 2], 1_000))).toEqual([]);
  });

  it("names a TTL gap from the logged dispatch times", () => {
    expect(explain(prompt(1, [0, 1], 0), prompt(2, [0, 1, 2], 7 * 60_000 + 3_000))).toEqual(["TTL gap: 7m 3s between requests, past the 5m lifetime"]);
  });

  it("names a prefix under the model's minimum", () => {
    expect(explain(prompt(1, [0, 1], 0, "short"), prompt(2, [0, 1, 2], 1, "short"))).toEqual([
      expect.stringMatching(/^prefix under the minimum: the previous request's longest marked prefix is \d+ tokens, below 1024 for claude-sonnet-4-6$/),
    ]);
  });

  it("names the 20-block lookback when the next breakpoint lies more than 20 blocks on", () => {
    expect(explain(prompt(1, [0, 1], 0), prompt(30, [0, 23], 1))).toEqual(["20-block lookback: the previous entry ends at block 1, 22 blocks before the next breakpoint"]);
    expect(explain(prompt(1, [0, 1], 0), prompt(30, [0, 21], 1))).toEqual([]);
  });

  it("names a request without breakpoints, a prefix changed before the first entry, and a tail left unmarked", () => {
    expect(explain(prompt(1, [0, 1], 0), prompt(2, [], 1))).toEqual(["no breakpoint in this request (cache policy none?)"]);
    expect(explain(prompt(1, [1], 0), prompt(2, [1, 2], 1, `${long}!`))).toEqual(["the prefix changed before the previous request's first cache entry"]);
    expect(explain(prompt(3, [0], 0), prompt(4, [0], 1))[0]).toMatch(/^unmarked: the previous request wrote nothing past block 0 \(\d+ of \d+ repeated tokens\)$/);
  });

  it("says nothing across a model switch, which shares no cache", () => {
    const explainer = new MessagesMissExplainer();
    explainer.next(prompt(1, [0, 1], 0), 0);
    expect(explainer.next(prompt(2, [0, 1, 2], 1, long, "claude-opus-4-8"), 10)).toEqual([]);
  });
});
