import { describe, expect, it } from "vitest";
import { ExplicitCache } from "./explicit-cache.js";
import { renderMessagesPrompt, type MessagesBlock } from "./messages-prompt.js";
import { startSimulator } from "./server.js";

const marker = { type: "ephemeral", ttl: "5m" };
const long = "A sentence that makes the system prompt long enough to cache. ".repeat(200);

/** A body with one system block and user text blocks, markers where `marks` says (block indexes counting the system block as 0). */
function body(texts: readonly string[], marks: readonly number[], ttl = "5m", model = "claude-sonnet-4-6") {
  const mark = (block: MessagesBlock, i: number): MessagesBlock => (marks.includes(i) ? { ...block, cache_control: { type: "ephemeral", ttl } } : block);
  return {
    model,
    system: [mark({ type: "text", text: long }, 0)],
    messages: [{ role: "user", content: texts.map((text, i) => mark({ type: "text", text }, i + 1)) }],
  };
}

describe("the explicit cache", () => {
  it("writes only prefixes ending at a breakpoint, and a later request reads the longest live one", () => {
    const cache = new ExplicitCache();
    const first = renderMessagesPrompt(body(["one", "two"], [0]));
    expect(cache.serve(first, 1024, 0)).toEqual({ read: 0, written5m: first[0]!.cumulativeTokens, written1h: 0, uncached: first[2]!.cumulativeTokens - first[0]!.cumulativeTokens });
    const second = renderMessagesPrompt(body(["one", "two", "three"], [0, 3]));
    const outcome = cache.serve(second, 1024, 1000);
    expect(outcome).toEqual({ read: second[0]!.cumulativeTokens, written5m: second[3]!.cumulativeTokens - second[0]!.cumulativeTokens, written1h: 0, uncached: 0 });
  });

  it("caches nothing below the model's minimum, and says nothing about it", () => {
    const cache = new ExplicitCache();
    const blocks = renderMessagesPrompt(body(["x"], [0]));
    expect(cache.serve(blocks, 1_000_000, 0)).toMatchObject({ read: 0, written5m: 0, uncached: blocks.at(-1)!.cumulativeTokens });
    expect(cache.serve(blocks, 1_000_000, 1)).toMatchObject({ read: 0 });
  });

  it("finds an entry at most 20 blocks before a breakpoint, not 21", () => {
    for (const [added, expected] of [[20, true], [21, false]] as const) {
      const cache = new ExplicitCache();
      cache.serve(renderMessagesPrompt(body([], [0])), 1024, 0);
      const later = renderMessagesPrompt(body(Array.from({ length: added }, (_, i) => `block ${i}`), [added]));
      expect(cache.serve(later, 1024, 1).read > 0).toBe(expected);
    }
  });

  it("lets an entry expire after its TTL from its last use, 5 minutes or 1 hour, on the virtual clock", () => {
    for (const [ttl, life] of [["5m", 300_000], ["1h", 3_600_000]] as const) {
      const cache = new ExplicitCache();
      const blocks = renderMessagesPrompt(body(["q"], [0], ttl));
      expect(cache.serve(blocks, 1024, 0)[ttl === "5m" ? "written5m" : "written1h"]).toBe(blocks[0]!.cumulativeTokens);
      expect(cache.serve(blocks, 1024, life - 1).read).toBe(blocks[0]!.cumulativeTokens);
      // Reading refreshed it: alive until (life - 1) + life.
      expect(cache.serve(blocks, 1024, 2 * life - 2).read).toBe(blocks[0]!.cumulativeTokens);
      const fresh = new ExplicitCache();
      fresh.serve(blocks, 1024, 0);
      expect(fresh.serve(blocks, 1024, life).read).toBe(0);
    }
  });

  it("keys entries on content without the markers and per model", () => {
    const cache = new ExplicitCache();
    cache.serve(renderMessagesPrompt(body(["a"], [0])), 1024, 0);
    const moved = renderMessagesPrompt(body(["a"], [0, 1]));
    expect(cache.serve(moved, 1024, 1).read).toBe(moved[0]!.cumulativeTokens);
    expect(cache.serve(renderMessagesPrompt(body(["a"], [0], "5m", "claude-opus-4-8")), 1024, 2).read).toBe(0);
  });
});

describe("the Messages API dialect", () => {
  async function post(url: string, payload: object) {
    const response = await fetch(`${url}/v1/messages`, { method: "POST", body: JSON.stringify({ max_tokens: 64, stream: true, ...payload }) });
    return { status: response.status, text: await response.text() };
  }

  it("refuses a fifth breakpoint and a 1-hour marker after a 5-minute one with HTTP 400 in Anthropic's error shape", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "ok" }] } });
    try {
      const five = await post(sim.origin, body(["a", "b", "c", "d"], [0, 1, 2, 3, 4]));
      expect(five.status).toBe(400);
      expect(JSON.parse(five.text)).toEqual({ type: "error", error: { type: "invalid_request_error", message: "A maximum of 4 blocks with cache_control may be provided. Found 5." } });
      const mixed = body(["a"], [0]);
      (mixed.messages[0]!.content[0] as { cache_control?: object }).cache_control = { type: "ephemeral", ttl: "1h" };
      expect((await post(sim.origin, mixed)).status).toBe(400);
      expect(sim.exchanges.every((exchange) => exchange.promptTokens === 0)).toBe(true);
      const ok = await post(sim.origin, body(["a"], [0]));
      expect(ok.status).toBe(200);
      expect(ok.text).toContain("event: message_stop");
    } finally {
      await sim.close();
    }
  });

  it("refuses what Anthropic refuses about content: empty or blank text, an empty message before the last, half a character", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "ok" }] } });
    const refusal = async (payload: object) => {
      const answer = await post(sim.origin, payload);
      expect(answer.status).toBe(400);
      return (JSON.parse(answer.text) as { error: { message: string } }).error.message;
    };
    const user = (content: unknown) => ({ role: "user", content });
    try {
      expect(await refusal({ model: "m", messages: [user([{ type: "text", text: "" }])] })).toBe("messages: text content blocks must be non-empty");
      expect(await refusal({ model: "m", messages: [user([{ type: "text", text: " \n" }])] })).toBe("messages: text content blocks must contain non-whitespace text");
      expect(await refusal({ model: "m", system: [{ type: "text", text: "\n" }], messages: [user("hi")] })).toBe("system: text content blocks must contain non-whitespace text");
      const blankResult = user([{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "\t" }] }]);
      expect(await refusal({ model: "m", messages: [blankResult] })).toBe("messages: text content blocks must contain non-whitespace text");
      expect(await refusal({ model: "m", messages: [user("hi"), { role: "assistant", content: [] }, user("again")] })).toBe(
        "messages.1: all messages must have non-empty content except for the optional final assistant message",
      );
      expect(await refusal({ model: "m", messages: [user([{ type: "text", text: "😀".slice(0, 1) }])] })).toBe(
        "messages.0.content.0.text: the request body is not valid UTF-8: unpaired surrogate",
      );
      expect(sim.exchanges.every((exchange) => exchange.promptTokens === 0)).toBe(true);
      // A final assistant message may be empty, and whitespace beside other text is fine.
      expect((await post(sim.origin, { model: "m", messages: [user([{ type: "text", text: "hi" }, { type: "text", text: "😀 " }]), { role: "assistant", content: [] }] })).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it("reports cache writes and reads in usage, and a TTL gap as a miss once the clock moves past it", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "1" }, { text: "2" }, { text: "3" }] } });
    try {
      const usage = (text: string) => JSON.parse(text.split("\n").find((line) => line.includes('"message_start"'))!.slice(6)).message.usage;
      const first = usage((await post(sim.origin, body(["q"], [0]))).text);
      expect(first).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: sim.exchanges[0]!.cacheWriteTokens });
      expect(first.cache_creation_input_tokens).toBeGreaterThan(1024);
      sim.advanceClock(299_999);
      expect(usage((await post(sim.origin, body(["q"], [0]))).text).cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
      sim.advanceClock(300_000);
      expect(usage((await post(sim.origin, body(["q"], [0]))).text).cache_read_input_tokens).toBe(0);
      expect(() => sim.advanceClock(-1)).toThrow(RangeError);
    } finally {
      await sim.close();
    }
  });
});
