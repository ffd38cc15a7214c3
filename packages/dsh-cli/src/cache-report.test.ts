import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { createJsonlLog } from "dsh-log";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { CacheRow } from "./cache-report.js";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const answer: LlmAdapter = {
  provider: "sim",
  async *stream() {
    yield { type: "text-delta", text: "noted" };
    yield { type: "usage", usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    yield { type: "finish", reason: "stop" };
  },
};

it("attributes every prefix break to the logged event behind it", async () => {
  const path = join(dir, "breaks.jsonl");
  const { log } = await createJsonlLog(path, { registry: createAgentRegistry() });
  let prompt = "You are version one.";
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [answer] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: () => prompt });
  await agent.run("first");
  await agent.run("second, plain follow-up");
  agent.reconfigure({ provider: "sim", model: "sim-2" });
  await agent.run("third, after a model change");
  prompt = "You are version two.";
  await agent.run("fourth, after a prompt change");
  await log.close();

  const result = await runCli(["cache", path, "--json"], { cwd: dir });
  expect(result.code).toBe(0);
  const rows = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as CacheRow);
  expect(rows.map((row) => row.isBreak)).toEqual([false, false, true, true]);
  expect(rows[1]!.stableTokens).toBe(rows[0]!.promptTokens);
  expect(rows[2]!.explanations).toEqual([expect.stringMatching(/^header change: model "sim-1" → "sim-2" \(seq \d+\)$/)]);
  expect(rows[3]!.explanations).toEqual([
    expect.stringMatching(/^system prompt change: replaced the surface nodes at seqs 2\.\.2 \(seq \d+, generation 1\)$/),
    expect.stringMatching(/^header series start \(seq \d+\)$/),
  ]);
  const table = await runCli(["cache", path], { cwd: dir });
  expect(table.stdout).toContain("4 request(s)");
  expect(table.stdout).toContain("2 break(s), 0 unexplained");
});
