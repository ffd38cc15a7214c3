import { Agent, createAgentRegistry } from "dsh-agent";
import { MemoryAttachmentStore } from "dsh-attachments";
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
