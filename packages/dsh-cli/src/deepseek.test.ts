import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

const key = process.env.DEEPSEEK_API_KEY;
if (key === undefined || key === "") {
  console.info("dsh-cli: skipping the live DeepSeek test (set DEEPSEEK_API_KEY to run it)");
}

describe("against the real DeepSeek API", () => {
  it.skipIf(key === undefined || key === "")(
    "reads from the prefix cache on every request after the first (opt-in: DEEPSEEK_API_KEY)",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "dsh-deepseek-"));
      try {
        const path = join(dir, "live.jsonl");
        const system = `You are a terse assistant. Always call list_dir on "." before answering. ${"Context padding. ".repeat(120)}`;
        const result = await runCli(["run", "--provider", "deepseek", "--log", path, "--system", system, "--max-steps", "4", "Name one file here."], {
          cwd: process.cwd(),
          env: { DEEPSEEK_API_KEY: key! },
        });
        expect(result.code).toBe(0);
        const { log } = await readJsonlLog(path, createAgentRegistry());
        const usages = log.slice().flatMap((event) =>
          event.type === "step/end" ? [(event.data as { usage?: { cacheReadTokens: number } }).usage?.cacheReadTokens ?? 0] : [],
        );
        expect(usages.length).toBeGreaterThan(1);
        for (const cacheRead of usages.slice(1)) expect(cacheRead).toBeGreaterThan(0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
