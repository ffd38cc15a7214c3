import { Agent, createAgentRegistry } from "dsh-agent";
import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { makePng } from "dsh-testkit";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { expect, it } from "vitest";
import { cacheRows, type CacheRow } from "./cache-report.js";
import { cacheReport } from "./report.js";
import { measured, tokenizedRequests } from "./tokenized.js";

it("reports, request by request, what measuring every request whole reports", async () => {
  const sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }, { text: "Three." }] } });
  const log = new EventLog({ registry: createAgentRegistry() });
  try {
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    let prompt = "Be exact. ".repeat(200);
    const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: () => prompt });
    await agent.run("first");
    await agent.run("second");
    prompt = `New. ${prompt}`;
    await agent.run("third");
  } finally {
    await sim.close();
  }
  const rows: CacheRow[] = [];
  for await (const row of cacheReport(log)) rows.push(row);
  const whole: CacheRow[] = [];
  for await (const row of cacheRows(log.slice(), measured(tokenizedRequests(log, new MemoryAttachmentStore())))) whole.push(row);
  expect(rows).toEqual(whole);
  expect(rows.map((row) => [row.isBreak, row.explanations.length])).toEqual([
    [false, 0],
    [false, 0],
    [true, 1],
  ]);
  expect(rows[1]!.cacheReadTokens).toBeGreaterThan(0);
  expect(rows[1]!.stableTokens).toBe(rows[0]!.promptTokens);
});

it("reads a session's images from the attachments given, and without them cannot measure a request that holds one", async () => {
  const sim = await startSimulator({ scenario: { responses: [{ text: "A square." }, { text: "Red." }] } });
  const store = new MemoryAttachmentStore();
  const image = await putImage(store, makePng(4, 4));
  const log = new EventLog({ registry: createAgentRegistry() });
  try {
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "openai", dialect: "openai", baseUrl: sim.url })], attachments: store });
    const agent = new Agent({ log, runtime, config: { provider: "openai", model: "gpt-5.5" }, systemPrompt: "Describe images." });
    await agent.run([{ type: "text", text: "What is this?" }, { type: "image", image }]);
    await agent.run("Which colour?");
  } finally {
    await sim.close();
  }
  const rows: CacheRow[] = [];
  for await (const row of cacheReport(log, { attachments: store })) rows.push(row);
  expect(rows).toHaveLength(2);
  expect(rows[1]!.stableTokens).toBe(rows[0]!.promptTokens);
  await expect((async () => {
    for await (const _row of cacheReport(log)) void _row;
  })()).rejects.toMatchObject({ code: "ATTACHMENT_MISSING" });
});
