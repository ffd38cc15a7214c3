import { Agent, createAgentRegistry, defineTool, requestDispatchEvent, stepEndEvent, stepStartEvent, turnStartEvent, type PriceOf } from "dsh-agent";
import { buildEpochHeader, requestHeaderEvent } from "dsh-header";
import { assistantMessageEvent, systemMessageEvent, userMessageEvent } from "dsh-surface";
import { LlmRuntime, type LlmAdapter, type TokenUsage } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { eventCosts, type EventCost } from "./event-costs.js";

/** An adapter that answers each request with the next scripted reply and reports the next usage. */
function scripted(replies: readonly { readonly call?: boolean; readonly usage: TokenUsage }[]): LlmAdapter {
  let next = 0;
  return {
    provider: "sim",
    async *stream() {
      const reply = replies[next++]!;
      if (reply.call === true) yield { type: "tool-call-delta", index: 0, callId: `c${next}`, name: "look", argumentsDelta: "{}" };
      else yield { type: "text-delta", text: `answer ${next}` };
      yield { type: "usage", usage: reply.usage };
      yield { type: "finish", reason: reply.call === true ? "tool-calls" : "stop" };
    },
  };
}

const usage = (inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number, outputTokens: number, cacheWrite1hTokens?: number): TokenUsage => ({
  inputTokens,
  cacheReadTokens,
  cacheWriteTokens,
  outputTokens,
  ...(cacheWrite1hTokens === undefined ? {} : { cacheWrite1hTokens }),
});

const look = defineTool({ name: "look", description: "Looks", parameters: z.object({}), execute: () => "seen ".repeat(50) });
const price: PriceOf = () => ({ input: 2, cacheRead: 0.2, cacheWrite5m: 2.5, cacheWrite1h: 4, output: 10, checked: "2026-12-07", source: "test" });

async function session(replies: Parameters<typeof scripted>[0], turns: readonly string[], prompts: readonly string[] = []) {
  const log = new EventLog({ registry: createAgentRegistry() });
  let prompt = "You answer in one line. ".repeat(20);
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [scripted(replies)] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: () => prompt, tools: [look] });
  for (const [index, text] of turns.entries()) {
    prompt = prompts[index] ?? prompt;
    await agent.run(text);
  }
  return log;
}

const byType = (rows: readonly EventCost[], type: string) => rows.filter((row) => row.type === type);

describe("eventCosts", () => {
  it("writes an event at its first request, reads it after, and bills what follows the cached prefix in full", async () => {
    const log = await session([{ usage: usage(1000, 0, 1000, 7) }, { usage: usage(1400, 1000, 0, 9) }], ["first question", "second question"]);
    const rows = eventCosts(log, price);
    const [system] = byType(rows, "system/message");
    expect(system).toMatchObject({ label: "system prompt", requests: 2, uncachedTokens: 0, cacheWrite1hTokens: 0 });
    expect(system!.cacheWrite5mTokens).toBeGreaterThan(0);
    expect(system!.cacheReadTokens).toBeGreaterThan(0);
    const [first, second] = byType(rows, "user/message");
    // The first question ends the first prompt: written, then read (a share by weight, so the edge of a prefix may fall inside it).
    expect(first).toMatchObject({ requests: 2 });
    expect(first!.cacheWrite5mTokens).toBeGreaterThan(0);
    expect(first!.cacheReadTokens).toBeGreaterThan(0);
    // The second question is the tail of the second request: past the 1,000 tokens read, billed in full.
    expect(second).toMatchObject({ requests: 1, cacheReadTokens: 0, cacheWrite5mTokens: 0 });
    expect(second!.uncachedTokens).toBeGreaterThan(0);
    expect(byType(rows, "request/header")).toEqual([expect.objectContaining({ label: "tools (1)", requests: 2 })]);
    // Each answer is charged its step's output tokens; the last one went into no request.
    expect(byType(rows, "assistant/message").map((row) => [row.requests, row.outputTokens])).toEqual([[1, 7], [0, 9]]);
    expect(rows.map((row) => row.seq)).toEqual([...rows.map((row) => row.seq)].sort((a, b) => a - b));
  });

  it("puts hour-long writes before five-minute ones, and prices each kind at its rate", async () => {
    const log = await session([{ usage: usage(600, 0, 600, 0, 400) }], ["a question"]);
    const rows = eventCosts(log, price);
    const [tools] = byType(rows, "request/header");
    const [question] = byType(rows, "user/message");
    expect(tools).toMatchObject({ cacheWrite5mTokens: 0, cacheReadTokens: 0 });
    expect(question!.cacheWrite1hTokens).toBe(0);
    expect(question!.cacheWrite5mTokens).toBeGreaterThan(0);
    const writes = (row: EventCost) => row.cacheWrite1hTokens * 4 + row.cacheWrite5mTokens * 2.5;
    // A row's dollars are its exact share; its tokens, that share rounded to whole ones (within one token of each kind).
    for (const row of rows) expect(Math.abs(row.cost.cacheWriteUsd - writes(row) / 1e6)).toBeLessThanOrEqual((4 + 2.5) / 1e6);
    expect(rows.reduce((sum, row) => sum + row.cacheWrite1hTokens, 0)).toBe(400);
  });

  it("charges a tool call's step and its result, and a replaced system prompt stays with the requests that held it", async () => {
    const replies = [{ call: true, usage: usage(500, 0, 0, 3) }, { usage: usage(800, 480, 0, 4) }, { usage: usage(900, 0, 0, 5) }];
    const log = await session(replies, ["look around", "again, with a new prompt"], [undefined as never, "A new prompt. ".repeat(20)]);
    const rows = eventCosts(log, price);
    expect(byType(rows, "system/message").map((row) => row.requests)).toEqual([2, 1]);
    expect(byType(rows, "tool/result")).toEqual([expect.objectContaining({ label: "tool result look", requests: 2 })]);
    const kinds = (row: EventCost) => row.uncachedTokens + row.cacheReadTokens + row.cacheWrite5mTokens + row.cacheWrite1hTokens;
    expect(rows.reduce((sum, row) => sum + kinds(row), 0)).toBe(2200);
    expect(rows.reduce((sum, row) => sum + row.outputTokens, 0)).toBe(12);
  });

  it("counts tokens but no dollars where the model has no price, and nothing for a step that reported no usage", async () => {
    const log = await session([{ usage: usage(100, 0, 0, 2) }], ["hello"]);
    const rows = eventCosts(log, () => undefined);
    expect(rows.reduce((sum, row) => sum + row.uncachedTokens, 0)).toBe(100);
    for (const row of rows) expect(row.cost.totalUsd).toBe(0);
    const silent: LlmAdapter = { provider: "sim", async *stream() { yield { type: "text-delta", text: "hi" }; yield { type: "finish", reason: "stop" }; } };
    const quiet = new EventLog({ registry: createAgentRegistry() });
    await new Agent({ log: quiet, runtime: new LlmRuntime({ adapters: [silent] }), config: { provider: "sim", model: "sim-1" } }).run("hello");
    expect(eventCosts(quiet, price)).toEqual([]);
  });

  it("bills a request by the prompt it was sent with when the messages are rewritten before its usage comes", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, {}, [{ name: "look", description: "Looks", parameters: { type: "object" } }]);
    await log.append([
      turnStartEvent.input({ turn: 0 }),
      stepStartEvent.input({ turn: 0, step: 0 }),
      systemMessageEvent.input({ content: "An old prompt. ".repeat(30), source: "system-prompt" }),
      userMessageEvent.input({ content: [{ type: "text", text: "hello" }], source: "user" }),
      requestHeaderEvent.input({ reason: "initial", header }),
      requestDispatchEvent.input({ turn: 0, step: 0 }),
    ]);
    // The system prompt replaced while the request is in flight: no agent log admits it (the loop rule
    // holds model-visible input back until the answer), but a list of events may hold it.
    const later = [
      systemMessageEvent.input({ content: "A new prompt.", source: "system-prompt", replaces: { start: 2, end: 2, generation: 1 } }),
      assistantMessageEvent.input({ content: [{ type: "text", text: "hi" }], source: "model" }),
      stepEndEvent.input({ turn: 0, step: 0, reason: "completed", finishReason: "stop", usage: usage(300, 0, 0, 5) }),
    ];
    const events = [...log, ...later.map((input, index) => ({ ...input, seq: 6 + index, time: 0 }) as LogEvent)];
    const rows = eventCosts(events, price);
    expect(rows.map((row) => [row.seq, row.label, row.requests])).toEqual([
      [2, "system prompt", 1],
      [3, "user", 1],
      [4, "tools (1)", 1],
      [7, "assistant", 0],
    ]);
    expect(rows.reduce((sum, row) => sum + row.uncachedTokens, 0)).toBe(300);
    expect(rows[0]!.uncachedTokens).toBeGreaterThan(rows[1]!.uncachedTokens);
  });

  it("charges a request with no part to its dispatch, and an answer that logged no message to its step's end", () => {
    const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, {});
    const inputs = [
      turnStartEvent.input({ turn: 0 }),
      stepStartEvent.input({ turn: 0, step: 0 }),
      requestHeaderEvent.input({ reason: "initial", header }),
      requestDispatchEvent.input({ turn: 0, step: 0 }),
      stepEndEvent.input({ turn: 0, step: 0, reason: "completed", finishReason: "stop", usage: usage(40, 10, 0, 3) }),
    ];
    const rows = eventCosts(inputs.map((input, seq) => ({ ...input, seq, time: 0 }) as LogEvent), price);
    expect(rows.map(({ seq, type, label, requests, cacheReadTokens, uncachedTokens, outputTokens }) => ({ seq, type, label, requests, cacheReadTokens, uncachedTokens, outputTokens }))).toEqual([
      { seq: 3, type: "request/dispatch", label: "request", requests: 0, cacheReadTokens: 10, uncachedTokens: 30, outputTokens: 0 },
      { seq: 4, type: "step/end", label: "answer of step 0.0 (no message logged)", requests: 0, cacheReadTokens: 0, uncachedTokens: 0, outputTokens: 3 },
    ]);
    expect(rows[0]!.cost.totalUsd).toBeCloseTo((10 * 0.2 + 30 * 2) / 1e6, 15);
    expect(rows[1]!.cost.outputUsd).toBeCloseTo((3 * 10) / 1e6, 15);
  });

  it("charges the tools to the header that first listed them while later headers list the same ones", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [scripted([{ usage: usage(100, 0, 0, 1) }, { usage: usage(120, 0, 0, 1) }, { usage: usage(140, 0, 0, 1) }])] }), config: { provider: "sim", model: "sim-1" }, tools: [look] });
    await agent.run("one");
    agent.reconfigure({ provider: "sim", model: "sim-2" });
    await agent.run("two");
    agent.tools.unregister("look");
    agent.tools.register(defineTool({ name: "peek", description: "Peeks", parameters: z.object({}), execute: () => "" }));
    await agent.run("three");
    const headers = log.slice().filter((event) => event.type === "request/header").map((event) => event.seq);
    expect(headers).toHaveLength(3);
    expect(byType(eventCosts(log, price), "request/header").map((row) => [row.seq, row.label, row.requests])).toEqual([
      [headers[0], "tools (1)", 2],
      [headers[2], "tools (1)", 1],
    ]);
  });
});
