import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
import { startSimulator, type Simulator } from "dsh-simulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startRecordingProxy } from "./test-support/recording-proxy.js";
import { runCli } from "./test-support/run-cli.js";

const KEY = "sk-provider-test-0123456789";
let dir: string;
let simulator: Simulator;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-providers-"));
  await writeFile(join(dir, "README.md"), "# A project\n");
});
afterEach(async () => {
  await simulator?.close();
  await rm(dir, { recursive: true, force: true });
});

const toolSession = [
  { toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { toolCalls: [{ name: "read_file", arguments: { path: "README.md" } }] },
  { text: "A project with a README." },
  { toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { text: "Still just the README." },
];

const cli = (provider: string, ...args: string[]) =>
  runCli([args[0]!, ...(args[0] === "resume" ? [args[1]!] : []), "--provider", provider, "--base-url", simulator.url, ...args.slice(args[0] === "resume" ? 2 : 1)], {
    cwd: dir,
    env: { DSH_API_KEY: KEY },
  });

async function headers(logPath: string) {
  const { log } = await readJsonlLog(logPath, createAgentRegistry());
  return log.slice().flatMap((event) => (event.type === "request/header" ? [event.data as { reason: string; header: { config: Record<string, unknown>; adapterDefaults?: Record<string, unknown> } }] : []));
}

describe("DeepSeek V4 through the CLI", () => {
  it("runs a tool session with thinking on, resumes without a change and rebuilds every body byte for byte", async () => {
    simulator = await startSimulator({ scenario: { responses: toolSession }, apiKey: KEY });
    const logPath = join(dir, "v4.jsonl");
    const run = await cli("deepseek", "run", "--log", logPath, "What is here?");
    expect(run.stderr).toContain("turn 0 completed after 3 step(s)");
    expect(run.code).toBe(0);
    const resumed = await cli("deepseek", "resume", logPath, "Anything new?");
    expect(resumed.code).toBe(0);

    // Every request was accepted: thinking on, and each tool-calling turn's reasoning sent back.
    const bodies = simulator.exchanges.map((exchange) => JSON.parse(exchange.body) as { model: string; thinking: unknown; reasoning_effort: string; messages: { role: string; tool_calls?: unknown; reasoning_content?: string }[] });
    expect(simulator.exchanges.map((exchange) => exchange.promptTokens > 0)).toEqual([true, true, true, true, true]);
    for (const body of bodies) {
      expect(body).toMatchObject({ model: "deepseek-v4-flash", thinking: { type: "enabled" }, reasoning_effort: "high" });
      for (const message of body.messages) if (message.tool_calls !== undefined) expect(message.reasoning_content).not.toBe("");
    }
    expect(simulator.exchanges.slice(1).every((exchange) => exchange.cacheHitTokens > 0)).toBe(true);

    // The effort came from the catalog: an adapter default, restored on resume as one (no change).
    const logged = await headers(logPath);
    expect(logged.map((header) => header.reason)).toEqual(["initial", "resume"]);
    expect(logged[0]!.header.adapterDefaults).toEqual({ reasoningEffort: "high" });
    expect(logged[1]!.header).toEqual(logged[0]!.header);

    const rebuilt = await runCli(["requests", logPath, "--wire"], { cwd: dir });
    expect(rebuilt.stdout).toBe(simulator.exchanges.map((exchange) => `${exchange.body}\n`).join(""));
  });

  it("logs --thinking off and --effort as explicit choices and sends them in DeepSeek's words", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "quick" }, { text: "deep" }] }, apiKey: KEY });
    expect((await cli("deepseek", "run", "--log", join(dir, "off.jsonl"), "--thinking", "off", "hi")).code).toBe(0);
    expect((await cli("deepseek", "run", "--log", join(dir, "xhigh.jsonl"), "--effort", "xhigh", "hi")).code).toBe(0);
    const [off, xhigh] = simulator.exchanges.map((exchange) => JSON.parse(exchange.body) as Record<string, unknown>);
    expect(off).toMatchObject({ thinking: { type: "disabled" } });
    expect(off!.reasoning_effort).toBeUndefined();
    expect(xhigh).toMatchObject({ thinking: { type: "enabled" }, reasoning_effort: "max" });
    const [offHeader] = await headers(join(dir, "off.jsonl"));
    expect(offHeader!.header.config.reasoningEffort).toBe("none");
    expect(offHeader!.header.adapterDefaults).toBeUndefined();
    const [xhighHeader] = await headers(join(dir, "xhigh.jsonl"));
    expect(xhighHeader!.header.config.reasoningEffort).toBe("xhigh");
    expect(xhighHeader!.header.adapterDefaults).toBeUndefined();
  });

  it("takes the model's default effort for --thinking on alone, as an explicit choice", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "on" }] }, apiKey: KEY });
    expect((await cli("deepseek", "run", "--log", join(dir, "on.jsonl"), "--thinking", "on", "hi")).code).toBe(0);
    expect(JSON.parse(simulator.exchanges[0]!.body)).toMatchObject({ thinking: { type: "enabled" }, reasoning_effort: "high" });
    const [onHeader] = await headers(join(dir, "on.jsonl"));
    expect(onHeader!.header.config.reasoningEffort).toBe("high");
    expect(onHeader!.header.adapterDefaults).toBeUndefined();
  });

  it("refuses a retired model in one line, before any request or log file", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "never" }] }, apiKey: KEY });
    const logPath = join(dir, "retired.jsonl");
    const run = await cli("deepseek", "run", "--model", "deepseek-chat", "--log", logPath, "hi");
    expect(run).toMatchObject({ code: 2, stderr: "dsh: deepseek retired deepseek-chat on 2026-07-24: use deepseek-v4-flash\n" });
    expect(simulator.exchanges).toHaveLength(0);
    await expect(stat(logPath)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("passes an unknown model through with a warning and no defaults", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "ok" }] }, apiKey: KEY });
    const logPath = join(dir, "unknown.jsonl");
    const run = await cli("deepseek", "run", "--model", "deepseek-v5-preview", "--log", logPath, "hi");
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("dsh: warning: deepseek model deepseek-v5-preview is not in dsh's catalog: sent as is, without defaults\n");
    expect(JSON.parse(simulator.exchanges[0]!.body).reasoning_effort).toBeUndefined();
    expect((await headers(logPath))[0]!.header.adapterDefaults).toBeUndefined();
  });

  it.each([
    [["--effort", "extreme"], "dsh: --effort takes one of minimal, low, medium, high, xhigh, max (use --thinking off to turn thinking off)\n"],
    [["--thinking", "maybe"], "dsh: --thinking takes on or off\n"],
    [["--thinking", "off", "--effort", "high"], "dsh: --effort says how hard to think: it cannot go with --thinking off\n"],
    [["--cache-retention", "24h"], "dsh: --cache-retention applies to the OpenAI providers (openai, openai-responses, sim-openai-responses) only\n"],
  ])("refuses %j as a usage error", async (flags, stderr) => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "never" }] }, apiKey: KEY });
    expect(await cli("deepseek", "run", "--log", join(dir, "bad.jsonl"), ...flags, "hi")).toMatchObject({ code: 2, stderr });
    expect(simulator.exchanges).toHaveLength(0);
  });
});

describe("OpenAI through the CLI", () => {
  it("sends the session id as prompt_cache_key and the retention asked for, both logged and rebuilt", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "one" }, { text: "two" }] }, apiKey: KEY });
    const logPath = join(dir, "openai.jsonl");
    expect((await cli("openai", "run", "--log", logPath, "--cache-retention", "24h", "hi")).code).toBe(0);
    expect((await cli("openai", "resume", logPath, "again")).code).toBe(0);
    const sessionId = (JSON.parse((await readFile(logPath, "utf8")).split("\n")[0]!) as { sessionId: string }).sessionId;
    for (const exchange of simulator.exchanges) {
      expect(JSON.parse(exchange.body)).toMatchObject({ model: "gpt-5.5", prompt_cache_key: sessionId, prompt_cache_retention: "24h" });
    }
    expect((await headers(logPath)).map((header) => header.reason)).toEqual(["initial", "resume"]);
    const rebuilt = await runCli(["requests", logPath, "--wire"], { cwd: dir });
    expect(rebuilt.stdout).toBe(simulator.exchanges.map((exchange) => `${exchange.body}\n`).join(""));
  });

  it("refuses a bad retention", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "never" }] }, apiKey: KEY });
    expect(await cli("openai", "run", "--log", join(dir, "bad.jsonl"), "--cache-retention", "forever", "hi")).toMatchObject({ code: 2, stderr: "dsh: --cache-retention takes in_memory or 24h\n" });
  });
});

describe("the recording proxy of the live tests", () => {
  it("forwards to the upstream, streams the answer back and records exactly what was sent", async () => {
    simulator = await startSimulator({ scenario: { responses: toolSession.slice(0, 3) }, apiKey: KEY });
    const proxy = await startRecordingProxy(simulator.url);
    try {
      const logPath = join(dir, "proxied.jsonl");
      const run = await runCli(["run", "--provider", "deepseek", "--base-url", proxy.url, "--log", logPath, "What is here?"], { cwd: dir, env: { DSH_API_KEY: KEY } });
      expect(run.code).toBe(0);
      expect(proxy.exchanges.map((exchange) => exchange.status)).toEqual([200, 200, 200]);
      expect(proxy.exchanges.map((exchange) => exchange.body)).toEqual(simulator.exchanges.map((exchange) => exchange.body));
      const rebuilt = await runCli(["requests", logPath, "--wire"], { cwd: dir });
      expect(rebuilt.stdout).toBe(proxy.exchanges.map((exchange) => `${exchange.body}\n`).join(""));
    } finally {
      await proxy.close();
    }
  });
});

describe("--provider openai-compatible", () => {
  it("runs on any Chat Completions server you name, without a key, and rebuilds every body it was sent", async () => {
    simulator = await startSimulator({ scenario: { responses: toolSession } });
    const local = (...argv: string[]) => runCli(argv, { cwd: dir, env: {} });
    const logPath = join(dir, "local.jsonl");
    const run = await local("run", "--provider", "openai-compatible", "--base-url", simulator.url, "--model", "qwen3-8b", "--log", logPath, "What is here?");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("warning");
    expect((await local("resume", logPath, "--base-url", simulator.url, "And now?")).code).toBe(0);
    const bodies = (await local("requests", "--wire", logPath)).stdout.trim().split("\n");
    expect(bodies).toEqual(simulator.exchanges.map((exchange) => exchange.body));
    const sent = JSON.parse(bodies[0]!) as Record<string, unknown>;
    expect(sent).toMatchObject({ model: "qwen3-8b" });
    expect(sent).not.toHaveProperty("prompt_cache_key");
    expect((await headers(logPath)).map((header) => header.header.config)).toEqual([{ provider: "openai-compatible", model: "qwen3-8b" }, { provider: "openai-compatible", model: "qwen3-8b" }]);
  });

  it("needs the server's URL and the model's name, each said in one line", async () => {
    const local = (...argv: string[]) => runCli(argv, { cwd: dir, env: {} });
    expect(await local("run", "--provider", "openai-compatible", "--model", "m", "hi")).toMatchObject({ code: 2, stderr: "dsh: --provider openai-compatible needs --base-url: the server's Chat Completions root, e.g. http://127.0.0.1:8000/v1\n" });
    expect(await local("run", "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "hi")).toMatchObject({ code: 2, stderr: "dsh: --provider openai-compatible needs --model: the name the server knows the model by\n" });
  });
});
