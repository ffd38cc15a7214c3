import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { Agent, createAgentRegistry } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { expectedCacheReads } from "dsh-cache-report";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { coldGateway } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { exportLive, sessionSpans } from "./drivers.js";
import type { LogEvent } from "dsh-log";
import type { LoggedRequest } from "./request.js";

/** Three turns on the simulated Messages API, a gateway in front that loses the cache from `coldFrom` on, exported live with both figures. */
async function run(coldFrom: number) {
  const sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }, { text: "Three." }] } });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    const adapter = coldGateway(new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-test" }), coldFrom);
    const exporter = new InMemorySpanExporter();
    const live = exportLive(log, exporter, { sessionId: "s", expectedCacheReadShare: expectedCacheReads() });
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter] }), config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 }, systemPrompt: "Check every answer twice before you give it. ".repeat(150) });
    for (const text of ["one", "two", "three"]) await agent.run(text);
    await live.stop();
    const chats = exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat "));
    return { log, chats: chats.map((span) => span.attributes) };
  } finally {
    await sim.close();
  }
}

describe("expected and reported cache reads on the chat spans", () => {
  it("carry the share the log says the provider should read beside the share it reported; they agree while it reads", async () => {
    const { chats } = await run(Infinity);
    expect(chats.map((attributes) => attributes["dsh.cache.expected_read_share"])).toEqual([0, expect.any(Number), expect.any(Number)]);
    for (const attributes of chats.slice(1)) {
      expect(attributes["dsh.cache.expected_read_share"]).toBeGreaterThan(0.5);
      expect(attributes["dsh.cache.read_share"]).toBeCloseTo(attributes["dsh.cache.expected_read_share"] as number, 1);
      expect(attributes["dsh.cache.expected_read.input_tokens"]).toBe(Math.round((attributes["dsh.cache.expected_read_share"] as number) * (attributes["gen_ai.usage.input_tokens"] as number)));
    }
  });

  it("show a gateway that lost the cache: the provider reported no reads where the log says most of the prompt should be read", async () => {
    const { log, chats } = await run(2);
    expect(chats.map((attributes) => attributes["dsh.cache.read_share"])).toEqual([0, 0, 0]);
    for (const attributes of chats.slice(1)) expect(attributes["dsh.cache.expected_read_share"]).toBeGreaterThan(0.5);
    // After the fact, from the log: the same figures.
    const again = await sessionSpans(log.slice(), { sessionId: "s", expectedCacheReadShare: expectedCacheReads() });
    expect(again.filter((span) => span.name.startsWith("chat ")).map((span) => span.attributes["dsh.cache.expected_read_share"])).toEqual(chats.map((attributes) => attributes["dsh.cache.expected_read_share"]));
  });
});

describe("a chat span's attribute sources", () => {
  it("are asked once per sent request, in dispatch order, with where and when it was dispatched", async () => {
    const { log } = await run(Infinity);
    const asked: LoggedRequest[] = [];
    await sessionSpans(log.slice(), { sessionId: "s", expectedCacheReadShare: (request) => void asked.push(request) });
    const dispatches = log.slice().filter((event) => event.type === "request/dispatch");
    expect(asked.map(({ turn, step, dispatchSeq, time }) => [turn, step, dispatchSeq, time])).toEqual(dispatches.map((event, turn) => [turn, 0, event.seq, event.time]));
  });

  it("leave a span without the attribute when they throw: thrown after the export's spans are done, or handed to onError while following", async () => {
    const { log } = await run(Infinity);
    const failing = () => {
      throw new Error("no such image");
    };
    await expect(sessionSpans(log.slice(), { sessionId: "s", expectedCacheReadShare: failing })).rejects.toMatchObject({
      code: "OTEL_ATTRIBUTE_FAILED",
      message: expect.stringMatching(/^the expected cache read of the request at seq \d+ failed: no such image; its chat span goes without it$/),
    });
    const errors: unknown[] = [];
    const exporter = new InMemorySpanExporter();
    const live = exportLive(log, exporter, { sessionId: "s", wireHash: failing, expectedCacheReadShare: () => 0.5, onError: (error) => errors.push(error) });
    expect(await live.stop()).toBe(6);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatchObject({ code: "OTEL_ATTRIBUTE_FAILED", message: expect.stringMatching(/^the wire hash of the request at seq \d+ failed/) });
    const chat = exporter.getFinishedSpans().find((span) => span.name.startsWith("chat "))!;
    expect(chat.attributes).not.toHaveProperty("dsh.request.wire_hash");
    expect(chat.attributes["dsh.cache.expected_read_share"]).toBe(0.5);
  });

  it("leave a span without the attribute when they give nothing, and never ask of a request that was not sent", async () => {
    const text = (t: string) => [{ type: "text", text: t }];
    const header = { config: { provider: "deepseek", model: "m" } };
    const events = [
      ["turn/start", { turn: 0 }],
      ["step/start", { turn: 0, step: 0 }],
      ["system/message", { content: "S", source: "system-prompt" }],
      ["user/message", { content: text("U"), source: "user" }],
      ["request/header", { reason: "initial", header }],
      ["request/dispatch", { turn: 0, step: 0 }],
      ["step/end", { turn: 0, step: 0, reason: "aborted", unsent: true }],
      ["step/start", { turn: 0, step: 1 }],
      ["request/dispatch", { turn: 0, step: 1 }],
      ["step/end", { turn: 0, step: 1, reason: "completed", usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 5, cacheWriteTokens: 0 } }],
      ["turn/end", { turn: 0, reason: "completed" }],
    ].map(([type, data], seq) => ({ type, data, seq, time: 1000 + seq }) as LogEvent);
    const asked: number[] = [];
    const spans = await sessionSpans(events, { sessionId: "s", wireHash: () => undefined, expectedCacheReadShare: (request) => void asked.push(request.dispatchSeq) });
    const chats = spans.filter((span) => span.name.startsWith("chat "));
    expect(chats.map((span) => span.attributes["dsh.request.sent"])).toEqual([false, true]);
    expect(asked).toEqual([8]);
    for (const span of chats) for (const key of ["dsh.request.wire_hash", "dsh.cache.expected_read_share", "dsh.cache.read_share"]) expect(span.attributes).not.toHaveProperty(key);
  });
});
