import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry, openAgent } from "dsh-agent";
import { AnthropicAdapter, CLAUDE_MODELS } from "dsh-anthropic";
import { compactionForecasts, costReport, type EventCost } from "dsh-cost-report";
import { startSimulator } from "dsh-simulator";
import { compactionForecast } from "dsh-what-if";
import { usageCost, type TokenUsage } from "dsh-llm";
import { readJsonlLog } from "dsh-log";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-cost-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface CostJson {
  readonly steps: readonly { turn: number; step: number; model: string; inputTokens: number; uncachedInputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number; costUsd: number | null }[];
  readonly turns: readonly { turn: number; inputTokens: number; costUsd: number; unpricedSteps: number }[];
  readonly total: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; costUsd: number; unpricedSteps: number };
  readonly prices: Record<string, { input: number }>;
}

/** The usage every `step/end` of a JSONL log recorded. */
async function loggedUsage(log: string): Promise<TokenUsage[]> {
  const lines = (await readFile(log, "utf8")).trim().split("\n").slice(1);
  return lines.map((line) => JSON.parse(line.replace(/^\{"chain":"[^"]*",/, "{")) as { type: string; data: { usage?: TokenUsage } }).flatMap((event) => (event.type === "step/end" && event.data.usage !== undefined ? [event.data.usage] : []));
}

describe("dsh cost", () => {
  it("totals exactly the logged usage, per step, per turn and in all, priced at the catalog's rates with reads and writes apart", async () => {
    const log = join(dir, "s.jsonl");
    const at = { cwd: dir };
    const system = `You are careful. ${"Check every file twice before answering. ".repeat(200)}`; // above Sonnet's 1,024-token minimum
    expect((await runCli(["run", "--provider", "sim-anthropic", "--system", system, "--log", log, "read notes.txt"], at)).code).toBe(0);
    expect((await runCli(["resume", log, "and again"], at)).code).toBe(0);
    const result = await runCli(["cost", log, "--json"], at);
    expect(result.code).toBe(0);
    const cost = JSON.parse(result.stdout) as CostJson;
    const usage = await loggedUsage(log);
    expect(cost.steps).toHaveLength(usage.length);
    const sum = (pick: (u: TokenUsage) => number) => usage.reduce((total, u) => total + pick(u), 0);
    expect(cost.total).toMatchObject({ inputTokens: sum((u) => u.inputTokens), outputTokens: sum((u) => u.outputTokens), cacheReadTokens: sum((u) => u.cacheReadTokens), cacheWriteTokens: sum((u) => u.cacheWriteTokens), unpricedSteps: 0 });
    expect(cost.total.cacheReadTokens).toBeGreaterThan(0); // the second turn reads what the first wrote
    expect(cost.total.cacheWriteTokens).toBeGreaterThan(0);
    const price = CLAUDE_MODELS.models["claude-sonnet-4-6"]!.price!;
    expect(cost.total.costUsd).toBeCloseTo(usage.reduce((total, u) => total + usageCost(u, price).totalUsd, 0), 12);
    expect(cost.turns.map((turn) => turn.turn)).toEqual([0, 1]);
    expect(cost.turns.reduce((total, turn) => total + turn.costUsd, 0)).toBeCloseTo(cost.total.costUsd, 12);
    expect(cost.steps.every((step) => step.uncachedInputTokens === step.inputTokens - step.cacheReadTokens - step.cacheWriteTokens)).toBe(true);
    expect(cost.prices["claude-sonnet-4-6"]).toMatchObject({ input: 3, checked: "2026-12-04" });

    const text = (await runCli(["cost", log], at)).stdout;
    expect(text).toMatch(/^turn\.step\s+model\s+uncached\s+cache-read\s+cache-write\s+output\s+cost$/m);
    expect(text).toMatch(/^0\.0\s+claude-sonnet-4-6\s+\d+\s+0\s+\d+\s+\d+\s+\$0\.\d+$/m);
    expect(text).toContain(`total: ${usage.length} step(s) with usage; ${cost.total.inputTokens} prompt tokens`);
    expect(text).toContain("price claude-sonnet-4-6: $3 input, $0.3 cache read, $3.75 5m write, $6 1h write, $15 output per 1M tokens (checked 2026-12-04, Anthropic's pricing page");
  });

  it("with --by-event, prints the library's per-event rows, which add up to the session's usage and cost", async () => {
    const log = join(dir, "s.jsonl");
    const at = { cwd: dir };
    const system = `You are careful. ${"Check every file twice before answering. ".repeat(200)}`;
    expect((await runCli(["run", "--provider", "sim-anthropic", "--system", system, "--log", log, "read notes.txt"], at)).code).toBe(0);
    expect((await runCli(["resume", log, "and again"], at)).code).toBe(0);
    const result = await runCli(["cost", log, "--by-event", "--json"], at);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as CostJson & { events: (EventCost & { costUsd: number })[] };
    const price = CLAUDE_MODELS.models["claude-sonnet-4-6"]!.price!;
    const { log: read } = await readJsonlLog(log, createAgentRegistry());
    const library = costReport(read, { prices: () => price, byEvent: true });
    expect(printed.events.map(({ costUsd: _usd, ...event }) => event)).toEqual(JSON.parse(JSON.stringify(library.events)));
    expect(printed.events.map((event) => event.label)).toEqual(expect.arrayContaining(["system prompt", "tools (2)", "tool result read_file", "user", "assistant"]));
    const tokens = printed.events.reduce((sum, event) => sum + event.uncachedTokens + event.cacheReadTokens + event.cacheWrite5mTokens + event.cacheWrite1hTokens, 0);
    expect(tokens).toBe(printed.total.inputTokens);
    expect(printed.events.reduce((sum, event) => sum + event.costUsd, 0)).toBeCloseTo(printed.total.costUsd, 12);

    const text = (await runCli(["cost", log, "--by-event"], at)).stdout;
    expect(text).toMatch(/^\s+seq event\s+requests\s+uncached\s+cache-read\s+cache-write\s+output\s+cost$/m);
    expect(text).toMatch(/^\s+\d+ tool result read_file\s+\d+\s+\d+\s+\d+\s+\d+\s+0\s+\$0\.\d+$/m);
    expect(text).toContain(`event(s); their tokens add up to the steps' ${printed.total.inputTokens} prompt and ${printed.total.outputTokens} output tokens`);
  });

  it("sets each logged compaction forecast beside what the requests after it cost", async () => {
    const log = join(dir, "s.jsonl");
    const price = CLAUDE_MODELS.models["claude-sonnet-4-6"]!.price!;
    const sim = await startSimulator({ scenario: { responses: Array.from({ length: 12 }, (_, i) => ({ text: `Noted, part ${i}.` })) } });
    try {
      const { agent, close } = await openAgent({
        session: log,
        adapters: [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-test" })],
        config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 256 },
        systemPrompt: "Check every answer twice before you give it. ".repeat(150),
        compaction: { contextWindow: 6000, threshold: 0.5, keepRecent: 2, summaryMaxTokens: 200, forecast: compactionForecast({ prices: () => price, turns: 40 }) },
      });
      for (let i = 0; i < 5; i++) await agent.run(`Part ${i} of the notes: ${"a long line of notes to keep. ".repeat(60)}`);
      await close();
    } finally {
      await sim.close();
    }
    const printed = JSON.parse((await runCli(["cost", log, "--json"], { cwd: dir })).stdout) as { forecasts: unknown[] };
    const { log: read } = await readJsonlLog(log, createAgentRegistry());
    const checks = compactionForecasts(read, () => price);
    expect(checks.length).toBeGreaterThan(0);
    expect(printed.forecasts).toEqual(JSON.parse(JSON.stringify(checks)));
    const [check] = checks;
    const text = (await runCli(["cost", log], { cwd: dir })).stdout;
    expect(text).toContain(`compaction forecast at seq ${check!.seq}: chose now (now $`);
    expect(text).toMatch(new RegExp(`never \\$[\\d.]+ over 40 request\\(s\\)\\); over the ${check!.requests} request\\(s\\) that followed, compaction included: forecast \\$[\\d.]+, actual \\$[\\d.]+\n`));
  });

  it("counts the tokens of a model without a price and says so, and takes prices from --prices FILE", async () => {
    const log = join(dir, "s.jsonl");
    const at = { cwd: dir };
    expect((await runCli(["run", "--provider", "sim", "--log", log, "hi"], at)).code).toBe(0);
    const unpriced = JSON.parse((await runCli(["cost", log, "--json"], at)).stdout) as CostJson;
    expect(unpriced.total).toMatchObject({ costUsd: 0, unpricedSteps: unpriced.steps.length });
    expect(unpriced.steps.every((step) => step.costUsd === null)).toBe(true);
    expect((await runCli(["cost", log], at)).stdout).toContain(`not counting ${unpriced.steps.length} step(s) whose model has no price (--prices FILE gives one)`);

    await writeFile(join(dir, "prices.json"), JSON.stringify({ "sim-1": { input: 1, cacheRead: 0.1, output: 2 } }));
    const priced = JSON.parse((await runCli(["cost", log, "--json", "--prices", "prices.json"], at)).stdout) as CostJson;
    expect(priced.total.unpricedSteps).toBe(0);
    const expected = priced.steps.reduce((sum, step) => sum + (step.uncachedInputTokens * 1 + step.cacheReadTokens * 0.1 + step.cacheWriteTokens * 1 + step.outputTokens * 2) / 1e6, 0);
    expect(priced.total.costUsd).toBeCloseTo(expected, 12);
    expect(priced.steps.some((step) => step.cacheReadTokens > 0)).toBe(true);
  });

  it("refuses a prices file that is not one, in one line", async () => {
    const log = join(dir, "s.jsonl");
    const at = { cwd: dir };
    expect((await runCli(["run", "--provider", "sim", "--log", log, "hi"], at)).code).toBe(0);
    await writeFile(join(dir, "bad.json"), JSON.stringify({ "sim-1": { input: -1, cacheRead: 0, output: 0 } }));
    expect(await runCli(["cost", log, "--prices", "bad.json"], at)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: --prices bad\.json: sim-1\.input: .+\n$/) });
    expect(await runCli(["cost", log, "--prices", "missing.json"], at)).toMatchObject({ code: 2, stderr: "dsh: --prices missing.json: no such file\n" });
    expect(await runCli(["cost"], at)).toMatchObject({ code: 2, stderr: expect.stringContaining("usage: dsh cost LOG") });
  });
});
