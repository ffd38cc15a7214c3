// Keyed end-to-end tests against the real APIs, through a recording proxy on loopback. They run when
// the key is in the environment and say why they are skipped otherwise.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { startRecordingProxy } from "./test-support/recording-proxy.js";
import { runCli } from "./test-support/run-cli.js";

const LIVE = [
  { provider: "deepseek", variable: "DEEPSEEK_API_KEY", upstream: "https://api.deepseek.com", model: "deepseek-v4-flash", extra: ["--thinking", "on"] },
  { provider: "openai", variable: "OPENAI_API_KEY", upstream: "https://api.openai.com/v1", model: "gpt-5.5", extra: [] },
  { provider: "openai-responses", variable: "OPENAI_API_KEY", upstream: "https://api.openai.com/v1", model: "gpt-5.6", extra: [] },
  { provider: "anthropic", variable: "ANTHROPIC_API_KEY", upstream: "https://api.anthropic.com", model: "claude-sonnet-4-6", extra: ["--thinking", "on"] },
  { provider: "gemini", variable: "GEMINI_API_KEY", upstream: "https://generativelanguage.googleapis.com/v1beta", model: "gemini-3.8-flash", extra: [] },
] as const;

for (const live of LIVE) {
  const key = process.env[live.variable];
  const missing = key === undefined || key === "";
  if (missing) console.info(`dsh-cli: skipping the live ${live.provider} test (set ${live.variable} to run it)`);

  describe(`against the real ${live.provider} API`, () => {
    it.skipIf(missing)(
      `runs a three-step tool session on ${live.model}, every follow-up accepted and read from the cache, rebuilt byte for byte`,
      async () => {
        const dir = await mkdtemp(join(tmpdir(), `dsh-${live.provider}-`));
        const proxy = await startRecordingProxy(live.upstream);
        try {
          const path = join(dir, "live.jsonl");
          // Long enough for every provider's cache minimum (OpenAI and Claude Sonnet 4.6 cache from 1,024 tokens, Gemini 3 from 4,096).
          const system = `You are a terse assistant. First call list_dir on ".", then read_file on one file it lists, then answer in one line. ${"Context padding. ".repeat(live.provider === "gemini" ? 2000 : 400)}`;
          const run = await runCli(["run", "--provider", live.provider, "--base-url", proxy.url, "--model", live.model, ...live.extra, "--log", path, "--system", system, "--max-steps", "4", "Name one file here."], {
            cwd: process.cwd(),
            env: { [live.variable]: key! },
          });
          expect(run.code).toBe(0);
          expect(proxy.exchanges.length).toBeGreaterThanOrEqual(3);
          expect(proxy.exchanges.map((exchange) => exchange.status)).toEqual(proxy.exchanges.map(() => 200));
          const { log } = await readJsonlLog(path, createAgentRegistry());
          const cacheReads = log.slice().flatMap((event) => (event.type === "step/end" ? [(event.data as { usage?: { cacheReadTokens: number } }).usage?.cacheReadTokens ?? 0] : []));
          for (const cacheRead of cacheReads.slice(1)) expect(cacheRead).toBeGreaterThan(0);
          const rebuilt = await runCli(["requests", path, "--wire"], { cwd: process.cwd() });
          expect(rebuilt.stdout).toBe(proxy.exchanges.map((exchange) => `${exchange.body}\n`).join(""));
        } finally {
          await proxy.close();
          await rm(dir, { recursive: true, force: true });
        }
      },
      180_000,
    );
  });
}
