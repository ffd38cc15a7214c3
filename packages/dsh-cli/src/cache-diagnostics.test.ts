import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CacheRow } from "dsh-cache-report";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-diagnostics-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ["sim-anthropic", "claude-opus-4-8", "system_changed"],
  ["sim-openai-responses", "gpt-5.6-terra", "input_changed"],
])("--cache-diagnostics on %s", (provider, otherModel, promptReason) => {
  it("shows, for a prompt change and a model change, dsh's cause and the provider's reason agreeing, every body rebuilt", async () => {
    const log = join(dir, "s.jsonl");
    const wire = join(dir, "wire.jsonl");
    const at = { cwd: dir };
    expect((await runCli(["run", "--provider", provider, "--cache-diagnostics", "--record-wire", wire, "--log", log, "look"], at)).code).toBe(0);
    expect((await runCli(["resume", log, "--record-wire", wire, "--system", "You are someone else now.", "again"], at)).code).toBe(0);
    expect((await runCli(["resume", log, "--record-wire", wire, "--model", otherModel, "and again"], at)).code).toBe(0);

    const rows = (await runCli(["cache", log, "--json"], at)).stdout.trim().split("\n").map((line) => JSON.parse(line) as CacheRow);
    const breaks = rows.filter((row) => row.isBreak);
    expect(breaks.map((row) => [row.explanations.length > 0, row.provider?.reason, row.provider?.agreement])).toEqual([
      [true, promptReason, "agree"],
      [true, "model_changed", "agree"],
    ]);
    expect(rows[0]!.provider).toBeUndefined();
    expect(rows.slice(1).every((row) => row.provider?.agreement === "agree")).toBe(true);
    expect(rows.filter((row) => !row.isBreak).slice(1).every((row) => row.provider?.verdict === "hit")).toBe(true);
    const text = (await runCli(["cache", log], at)).stdout;
    expect(text).toContain(`provider: miss (${promptReason}, `);
    expect(text).toContain(`provider diagnoses: ${rows.length - 1}; ${rows.length - 1} agree with the log, 0 disagree, 0 provider-only (no logged cause), 0 without a verdict.`);

    // The opt-in is a logged choice, restored on resume, and the previous answer's id comes from the log.
    const inspect = (await runCli(["inspect", log], at)).stdout;
    expect(inspect.match(/cacheDiagnostics=true/g)).toHaveLength(3);
    const recorded = (await readFile(wire, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as string);
    expect((await runCli(["requests", log, "--wire"], at)).stdout).toBe(recorded.map((body) => `${body}\n`).join(""));
  });
});

describe("--cache-diagnostics elsewhere", () => {
  it("is a usage error on a Chat Completions provider", async () => {
    expect(await runCli(["run", "--provider", "sim", "--cache-diagnostics", "--log", join(dir, "x.jsonl"), "hi"], { cwd: dir })).toMatchObject({
      code: 2,
      stderr: "dsh: --cache-diagnostics applies to the Messages API providers (anthropic, sim-anthropic) and the Responses API providers (openai-responses, sim-openai-responses) only\n",
    });
  });
});
