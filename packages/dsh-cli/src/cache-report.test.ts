import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { createJsonlLog } from "dsh-log";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { CacheRow } from "dsh-cache-report";
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
  expect(rows[2]!.explanations).toEqual([expect.stringMatching(/^settings changed: model "sim-1" → "sim-2" \(seq \d+\)$/)]);
  // The series snapshot that follows the replace is its consequence, not a second cause.
  expect(rows[3]!.explanations).toEqual([expect.stringMatching(/^the system prompt changed: the message logged at seq 2 \(seq \d+\)$/)]);
  const table = await runCli(["cache", path], { cwd: dir });
  expect(table.stdout).toContain("4 request(s)");
  expect(table.stdout).toContain("2 break(s), 0 unexplained");
});

it("reads a resumed session's prefix from the embedded simulator's cache file, and explains the miss when that cache is gone", async () => {
  const log = join(dir, "s.jsonl");
  const cli = async (...argv: string[]) => {
    const result = await runCli(argv, { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  await cli("run", "--log", log, "What is here?");
  await cli("resume", log, "And now?");
  await rm(join(dir, ".dsh", "simulator-cache.json"));
  await cli("resume", log, "Once more?");
  const rows = (await cli("cache", log, "--json")).trimEnd().split("\n").map((line) => JSON.parse(line) as CacheRow);
  const first = (turn: number) => rows.find((row) => row.turn === turn && row.step === 0)!;
  // Another process, the same cache: every whole 64-token unit of the repeated prefix is read.
  expect(first(1).cacheReadTokens).toBe(first(1).stableTokens - (first(1).stableTokens % 64));
  expect(first(1).misses).toEqual([]);
  expect(first(2)).toMatchObject({ isBreak: false, cacheReadTokens: 0, misses: [expect.stringMatching(/^the simulator read 0 of the \d+ repeated tokens it could have: .* kept in \.dsh\/simulator-cache\.json/)] });
  expect(await cli("cache", log)).toMatch(/1 cache miss\(es\) \(requests whose repeated prefix the provider's rules would not read\)/);
});
