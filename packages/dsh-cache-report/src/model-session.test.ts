import { Agent, createAgentRegistry, defineTool, reconstructRequests, stepEndEvent } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { MemoryAttachmentStore } from "dsh-attachments";
import { LlmRuntime, usageCost, type LlmAdapter, type LlmCallConfig } from "dsh-llm";
import { EventLog } from "dsh-log";
import { GeminiAdapter } from "dsh-gemini";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { ResponsesAdapter } from "dsh-openai-responses";
import { startSimulator, type Simulator } from "dsh-simulator";
import { wireBody, wireSha256 } from "dsh-wire";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { modelSession } from "./model-session.js";

const price = { input: 3, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6, output: 15, checked: "2026-12-07", source: "test" };

/** Three turns with a tool on the simulator; the prompt (`repeats` sentences) changes before the last. */
async function session(adapter: (sim: Simulator) => LlmAdapter, config: LlmCallConfig, repeats = 150): Promise<EventLog> {
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "look", arguments: {} }] }, { text: "Seen." }, { text: "Two." }, { text: "Three." }] } });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    let prompt = "You are careful. Check every answer twice. ".repeat(repeats);
    const look = defineTool({ name: "look", description: "Looks", parameters: z.object({}), execute: () => "a tidy room ".repeat(30) });
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter(sim)] }), config, systemPrompt: () => prompt, tools: [look] });
    await agent.run("one?");
    await agent.run("two?");
    prompt = `Changed. ${prompt}`;
    await agent.run("three?");
    return log;
  } finally {
    await sim.close();
  }
}

/** The cache reads each step of a log reported. */
function reportedReads(log: EventLog): number[] {
  return log.slice().flatMap((event) => (stepEndEvent.is(event) && event.data.usage !== undefined ? [event.data.usage.cacheReadTokens] : []));
}

/** The cache writes each step of a log reported. */
function reportedWrites(log: EventLog): number[] {
  return log.slice().flatMap((event) => (stepEndEvent.is(event) && event.data.usage !== undefined ? [event.data.usage.cacheWriteTokens] : []));
}

describe("modelSession", () => {
  it("serves each request to Anthropic's modelled cache: the first writes, the next read it, a new prompt writes again, each priced", async () => {
    const log = await session((sim) => new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-test" }), { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024, cacheTtl: "1h" });
    const modelled = await modelSession(log, new MemoryAttachmentStore(), () => price);
    const { requests } = modelled;
    expect(requests.map((request) => request.cacheReadTokens)).toEqual(reportedReads(log));
    expect(requests.map((request) => [request.turn, request.step, request.isBreak])).toEqual([
      [0, 0, false],
      [0, 1, false],
      [1, 0, false],
      [2, 0, true],
    ]);
    expect(requests[0]).toMatchObject({ cacheReadTokens: 0, repeatedTokens: 0, inputTokens: 0 });
    expect(requests[0]!.cacheWriteTokens).toBe(requests[0]!.promptTokens);
    for (const request of requests.slice(1, 3)) {
      expect(request.cacheReadTokens).toBeGreaterThan(0);
      expect(request.repeatedTokens).toBeGreaterThanOrEqual(request.cacheReadTokens);
    }
    expect(requests[3]!.cacheReadTokens).toBe(0);
    // Only a break says where the bytes diverge.
    expect(requests.slice(0, 3).map((request) => request.divergence)).toEqual([undefined, undefined, undefined]);
    expect(requests[3]!.causes).toEqual([expect.stringMatching(/^the system prompt changed: the message logged at seq 2 \(seq \d+\)$/)]);
    expect(requests[3]!.divergence).toMatchObject({ now: expect.stringMatching(/^Changed\. You are careful/), was: expect.stringMatching(/^You are careful/) });
    for (const request of requests) {
      // Every write is an hour-long one here.
      const usage = { inputTokens: request.promptTokens, outputTokens: request.outputTokens, cacheReadTokens: request.cacheReadTokens, cacheWriteTokens: request.cacheWriteTokens, cacheWrite1hTokens: request.cacheWriteTokens };
      expect(request.costUsd).toBeCloseTo(usageCost(usage, price).totalUsd, 12);
      expect(request.inputTokens).toBe(request.promptTokens - request.cacheReadTokens - request.cacheWriteTokens);
      expect(request.model).toBe("claude-sonnet-4-6");
    }
    expect(requests.map((request) => request.outputTokens).every((tokens) => tokens > 0)).toBe(true);
    const sum = (pick: (request: (typeof requests)[number]) => number) => requests.reduce((total, request) => total + pick(request), 0);
    expect(modelled.totals).toEqual({
      promptTokens: sum((request) => request.promptTokens),
      cacheReadTokens: sum((request) => request.cacheReadTokens),
      cacheWriteTokens: sum((request) => request.cacheWriteTokens),
      inputTokens: sum((request) => request.inputTokens),
      outputTokens: sum((request) => request.outputTokens),
      costUsd: sum((request) => request.costUsd!),
      unpriced: 0,
    });
    expect(modelled.bodyDigests).toEqual(await Promise.all((await reconstructRequests(log)).map(async (request) => wireSha256(await wireBody(request)))));
  });

  it("reads DeepSeek's automatic cache in 64-token units and writes nothing billable; without a price nothing is priced", async () => {
    const log = await session((sim) => new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url }), { provider: "deepseek", model: "deepseek-v4-flash" });
    const modelled = await modelSession(log, new MemoryAttachmentStore(), () => undefined);
    expect(modelled.requests.map((request) => request.cacheReadTokens)).toEqual(reportedReads(log));
    // Some read ends on a 64-token unit that is not a 128-token one (OpenAI's unit).
    expect(modelled.requests.some((request) => request.cacheReadTokens % 128 === 64)).toBe(true);
    for (const request of modelled.requests) {
      expect(request.cacheWriteTokens).toBe(0);
      expect(request.cacheReadTokens % 64).toBe(0);
      expect(request.costUsd).toBeNull();
    }
    expect(modelled.requests[1]!.cacheReadTokens).toBeGreaterThan(0);
    expect(modelled.totals).toMatchObject({ costUsd: 0, unpriced: 4, cacheWriteTokens: 0 });
  });

  it.each([
    ["OpenAI's Chat Completions, from 1,024 tokens then in 128-token units", (sim: Simulator) => new ChatCompletionsAdapter({ provider: "openai", dialect: "openai", baseUrl: sim.url }), { provider: "openai", model: "gpt-5.5" }, 150, 128, false],
    ["the Responses API", (sim: Simulator) => new ResponsesAdapter({ baseUrl: sim.url, apiKey: "sk-test" }), { provider: "openai-responses", model: "gpt-5.6" }, 150, 1, true],
    ["the Responses API before GPT-5.6", (sim: Simulator) => new ResponsesAdapter({ baseUrl: sim.url, apiKey: "sk-test" }), { provider: "openai-responses", model: "gpt-5.5" }, 150, 128, false],
    ["the Gemini API, from 4,096 tokens", (sim: Simulator) => new GeminiAdapter({ baseUrl: `${sim.origin}/v1beta`, apiKey: "test" }), { provider: "gemini", model: "gemini-3.8-flash" }, 600, 128, false],
  ] as const)("reads %s, writes what the provider bills, and reads nothing after the new prompt", async (_name, adapter, config, repeats, unit, billsWrites) => {
    const log = await session(adapter, config, repeats);
    const modelled = await modelSession(log, new MemoryAttachmentStore(), () => price);
    const { requests } = modelled;
    // The model reads what the simulator serving the session read: the same rules on the same bytes.
    expect(requests.map((request) => request.cacheReadTokens)).toEqual(reportedReads(log));
    expect(requests[1]!.cacheReadTokens).toBeGreaterThan(0);
    expect(requests[2]!.cacheReadTokens).toBeGreaterThanOrEqual(requests[1]!.cacheReadTokens);
    expect(requests[3]).toMatchObject({ isBreak: true, cacheReadTokens: 0 });
    // Writes too: GPT-5.6 bills what a request stores past what it read (the new prompt is written again).
    expect(requests.map((request) => request.cacheWriteTokens)).toEqual(reportedWrites(log));
    if (billsWrites) expect(Math.min(requests[0]!.cacheWriteTokens, requests[3]!.cacheWriteTokens)).toBeGreaterThan(1024);
    for (const request of requests) {
      if (!billsWrites) expect(request.cacheWriteTokens).toBe(0);
      expect(request.cacheReadTokens % unit).toBe(0);
      expect(request.cacheReadTokens).toBeLessThanOrEqual(request.repeatedTokens);
    }
  });
});

