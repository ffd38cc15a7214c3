import type { RequestHeaderSnapshot } from "dsh-header";
import { describe, expect, it } from "vitest";
import type { Message } from "dsh-llm";
import { cacheLifetimeMs, compactionShape, paceOf, type LoggedStep } from "./compaction-forecast.js";

const step = (turn: number, time: number, inputTokens: number, outputTokens: number): LoggedStep => ({ turn, time, inputTokens, outputTokens });
// Turn 0 makes two requests; turn 1 starts 399 s after it and has made one so far.
const steps = [step(0, 0, 1000, 10), step(0, 1000, 1100, 20), step(1, 400_500, 1300, 30)];
const turnStarts = new Map([[0, 0], [1, 400_000]]);

describe("paceOf", () => {
  it("carries the latest prompt, the mean growth and output, the requests per finished turn and those the open turn has left", () => {
    expect(paceOf({ steps, turnStarts, openTurn: 1 }, 8, 300_000)).toEqual({
      promptTokens: 1300,
      growthPerRequest: 150,
      outputPerRequest: 20,
      requestsPerTurn: 2,
      requestsBeforeTurn: 1,
      coldTurnStarts: true,
    });
  });

  it("measures over the last `window` requests, leaves a drop (a compaction) out of the growth, and counts a turn start only across turns", () => {
    expect(paceOf({ steps, turnStarts, openTurn: 1 }, 1, 300_000)).toMatchObject({ growthPerRequest: 200, outputPerRequest: 25 });
    const dropped = [...steps, step(1, 401_000, 600, 40)];
    expect(paceOf({ steps: dropped, turnStarts, openTurn: 1 }, 8, undefined)).toMatchObject({ promptTokens: 600, growthPerRequest: 150, outputPerRequest: 25, requestsBeforeTurn: 1, coldTurnStarts: false });
    // The pause is the median before each turn: a warm one and two cold ones make turns start cold.
    const many = [step(0, 0, 10, 1), step(1, 1000, 20, 1), step(2, 500_000, 30, 1), step(3, 900_000, 40, 1)];
    const starts = new Map([[0, 0], [1, 500], [2, 400_000], [3, 800_000]]);
    expect(paceOf({ steps: many, turnStarts: starts, openTurn: undefined }, 8, 300_000)).toMatchObject({ coldTurnStarts: true, requestsPerTurn: 1, requestsBeforeTurn: 0 });
    expect(paceOf({ steps: many, turnStarts: starts, openTurn: undefined }, 8, 399_001)).toMatchObject({ coldTurnStarts: false });
    expect(paceOf({ steps: many.slice(0, 2), turnStarts: starts, openTurn: undefined }, 8, 400)).toMatchObject({ coldTurnStarts: true });
    // Only a pause before a turn counts: the steps within a turn are not pauses.
    const within = [step(0, 0, 10, 1), step(0, 1000, 20, 1), step(0, 2000, 30, 1), step(1, 400_500, 40, 1)];
    expect(paceOf({ steps: within, turnStarts: new Map([[0, 0], [1, 400_000]]), openTurn: undefined }, 8, 300_000)).toMatchObject({ coldTurnStarts: true, requestsPerTurn: 2 });
    // A turn whose start was not logged gives no pause.
    expect(paceOf({ steps: many.slice(0, 2), turnStarts: new Map(), openTurn: undefined }, 8, 1)).toMatchObject({ coldTurnStarts: false });
  });

  it("takes the open turn's own requests when no turn has finished, and says the next request starts a turn between turns", () => {
    const first = [step(0, 0, 100, 5), step(0, 10, 150, 5), step(0, 20, 190, 5)];
    expect(paceOf({ steps: first, turnStarts: new Map([[0, 0]]), openTurn: 0 }, 8, undefined)).toMatchObject({ requestsPerTurn: 3, requestsBeforeTurn: 1, growthPerRequest: 45 });
    expect(paceOf({ steps: first, turnStarts: new Map([[0, 0]]), openTurn: undefined }, 8, undefined)).toMatchObject({ requestsPerTurn: 3, requestsBeforeTurn: 0 });
    expect(paceOf({ steps: [step(0, 0, 100, 5)], turnStarts: new Map(), openTurn: 1 }, 8, undefined)).toMatchObject({ requestsPerTurn: 1, requestsBeforeTurn: 0, growthPerRequest: 0 });
    expect(paceOf({ steps: [], turnStarts: new Map(), openTurn: undefined }, 8, undefined)).toBeUndefined();
  });
});

describe("cacheLifetimeMs", () => {
  const snapshot = (header: object) => ({ seq: 0, header: { config: { provider: "p", model: "gpt-5.6" }, ...header } }) as unknown as RequestHeaderSnapshot;
  it("is the Messages API's 5 minutes or the hour asked for (by the request or its adapter), GPT-5.6's 30 minutes, and unknown elsewhere", () => {
    expect(cacheLifetimeMs(snapshot({ wire: { api: "messages" } }))).toBe(5 * 60_000);
    expect(cacheLifetimeMs(snapshot({ config: { provider: "anthropic", model: "m", cacheTtl: "1h" }, wire: { api: "messages" } }))).toBe(60 * 60_000);
    expect(cacheLifetimeMs(snapshot({ adapterDefaults: { cacheTtl: "1h" }, wire: { api: "messages" } }))).toBe(60 * 60_000);
    // An Anthropic-format endpoint that caches automatically (DeepSeek's) keeps no lifetime the simulator models.
    expect(cacheLifetimeMs(snapshot({ wire: { api: "messages", automaticCache: true } }))).toBeUndefined();
    expect(cacheLifetimeMs(snapshot({ wire: { api: "responses" } }))).toBe(30 * 60_000);
    expect(cacheLifetimeMs(snapshot({ config: { provider: "openai", model: "gpt-5.5" }, wire: { api: "responses" } }))).toBeUndefined();
    expect(cacheLifetimeMs(snapshot({ wire: { api: "gemini" } }))).toBeUndefined();
  });
});

describe("compactionShape", () => {
  it("shares the measured prompt out by characters: the tools and the messages before the range, the range, the rest", () => {
    const message = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], source: "user" }) as Message;
    const size = (text: string) => JSON.stringify(message(text)).length;
    const messages = [message("a".repeat(50)), message("b".repeat(300)), message("c".repeat(100)), message("d".repeat(20))];
    const tools = [{ name: "t", description: "x".repeat(40) }];
    const all = size("a".repeat(50)) + JSON.stringify(tools).length + size("b".repeat(300)) + size("c".repeat(100)) + size("d".repeat(20));
    const shape = compactionShape({ messages, range: { startIndex: 1, endIndex: 2 }, summaryMaxTokens: 64 }, tools, 1000);
    expect(shape).toEqual({
      prefixTokens: Math.round(((size("a".repeat(50)) + JSON.stringify(tools).length) * 1000) / all),
      rangeTokens: Math.round(((size("b".repeat(300)) + size("c".repeat(100))) * 1000) / all),
      summaryTokens: 64,
    });
    expect(compactionShape({ messages, range: { startIndex: 1, endIndex: 2 }, summaryMaxTokens: 64 }, undefined, 1000).prefixTokens).toBe(Math.round((size("a".repeat(50)) * 1000) / (all - JSON.stringify(tools).length)));
    expect(compactionShape({ messages: [], range: { startIndex: 1, endIndex: 2 }, summaryMaxTokens: 8 }, undefined, 1000)).toEqual({ prefixTokens: 0, rangeTokens: 0, summaryTokens: 8 });
  });
});
