import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator, type Simulator } from "dsh-simulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

const KEY = "sk-responses-cli-0123456789";
let dir: string;
let simulator: Simulator | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-responses-"));
  await writeFile(join(dir, "README.md"), "# A project\n");
});
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
  await rm(dir, { recursive: true, force: true });
});

const toolSession = [
  { reasoning: "List it.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { reasoning: "Read it.", toolCalls: [{ name: "read_file", arguments: { path: "README.md" } }] },
  { text: "A project with a README." },
  { toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { text: "Still just the README." },
];

/** A system prompt long enough for OpenAI's 1,024-token cache minimum. */
const SYSTEM = `You are terse. ${"Some standing context for the cache. ".repeat(200)}`;

interface Body {
  readonly model: string;
  readonly store: boolean;
  readonly prompt_cache_key: string;
  readonly input: readonly { readonly type?: string; readonly id?: string }[];
}

describe("OpenAI's Responses API through the CLI", () => {
  it("runs a tool session with reasoning, sends every reasoning item back, resumes without a change and rebuilds every body byte for byte", async () => {
    simulator = await startSimulator({ scenario: { responses: toolSession }, apiKey: KEY });
    const logPath = join(dir, "responses.jsonl");
    const env = { env: { DSH_API_KEY: KEY }, cwd: dir };
    const run = await runCli(["run", "--provider", "openai-responses", "--base-url", simulator.url, "--system", SYSTEM, "--log", logPath, "What is here?"], env);
    expect(run.stderr).toContain("turn 0 completed after 3 step(s)");
    expect((await runCli(["resume", logPath, "--provider", "openai-responses", "--base-url", simulator.url, "Anything new?"], env)).code).toBe(0);

    const sessionId = (JSON.parse((await readFile(logPath, "utf8")).split("\n")[0]!) as { sessionId: string }).sessionId;
    const bodies = simulator.exchanges.map((exchange) => JSON.parse(exchange.body) as Body);
    expect(bodies).toHaveLength(5);
    expect(simulator.exchanges.every((exchange) => exchange.promptTokens > 0)).toBe(true);
    for (const body of bodies) expect(body).toMatchObject({ model: "gpt-5.6", store: false, prompt_cache_key: sessionId });
    // Every earlier answer's reasoning item goes back: one per answer before this request.
    expect(bodies.map((body) => body.input.filter((item) => item.type === "reasoning").length)).toEqual([0, 1, 2, 3, 4]);
    expect(simulator.exchanges.slice(1).every((exchange) => exchange.cacheHitTokens >= 1024)).toBe(true);

    const inspect = await runCli(["inspect", logPath], { cwd: dir });
    expect(inspect.stdout.match(/header (\w+)/g)).toEqual(["header initial", "header resume"]);
    expect(inspect.stdout).toContain('reasoningEffort="medium" (adapter default) cachePolicy="rolling-v1" (adapter default)');
    const rebuilt = await runCli(["requests", logPath, "--wire"], { cwd: dir });
    expect(rebuilt.stdout).toBe(simulator.exchanges.map((exchange) => `${exchange.body}\n`).join(""));
    const cache = await runCli(["cache", logPath], { cwd: dir });
    expect(cache.stdout).toContain("5 request(s)");
    expect(cache.stdout).toContain("0 break(s), 0 unexplained");
  });

  it("runs on the embedded simulator with sim-openai-responses, and takes --cache-policy none", async () => {
    const logPath = join(dir, "sim.jsonl");
    const run = await runCli(["run", "--provider", "sim-openai-responses", "--cache-policy", "none", "--log", logPath, "What is here?"], { cwd: dir });
    expect(run.code).toBe(0);
    const wire = (await runCli(["requests", logPath, "--wire"], { cwd: dir })).stdout.trim().split("\n");
    expect(wire.length).toBeGreaterThanOrEqual(2);
    for (const body of wire) expect(body).not.toContain("prompt_cache_breakpoint");
    expect(await runCli(["run", "--provider", "sim-openai-responses", "--cache-policy", "rolling-v9", "--log", join(dir, "x.jsonl"), "hi"], { cwd: dir })).toMatchObject({
      code: 2,
      stderr: "dsh: --cache-policy takes one of rolling-v1, none on the Responses API\n",
    });
    expect(await runCli(["run", "--provider", "sim-openai-responses", "--cache-ttl", "1h", "--log", join(dir, "x.jsonl"), "hi"], { cwd: dir })).toMatchObject({ code: 2 });
  });

  it("refuses a retired model before sending anything", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "never" }] }, apiKey: KEY });
    const run = await runCli(["run", "--provider", "openai-responses", "--base-url", simulator.url, "--model", "gpt-4.5-preview", "--log", join(dir, "r.jsonl"), "hi"], { cwd: dir, env: { DSH_API_KEY: KEY } });
    expect(run).toMatchObject({ code: 2, stderr: "dsh: openai retired gpt-4.5-preview on 2025-07-14: use gpt-5.5\n" });
    expect(simulator.exchanges).toHaveLength(0);
  });
});
