import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlStore } from "dsh-log";
import { startSimulator, type Simulator } from "dsh-simulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";
import { cliBackend } from "./web-backend.js";

const KEY = "AIza-gemini-cli-0123456789";
let dir: string;
let simulator: Simulator | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-gemini-"));
  await writeFile(join(dir, "README.md"), "# A project\n");
});
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
  await rm(dir, { recursive: true, force: true });
});

const toolSession = [
  { reasoning: "List it.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { reasoning: "Read it.", toolCalls: [{ name: "read_file", arguments: '{"path": "README.md"}' }] },
  { text: "A project with a README." },
  { toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { text: "Still just the README." },
];

/** A system prompt long enough for Gemini 3's 4,096-token implicit cache minimum. */
const SYSTEM = `You are terse. ${"Some standing context for the cache. ".repeat(700)}`;

type Part = { readonly functionCall?: { readonly name: string; readonly args: unknown }; readonly thoughtSignature?: string; readonly text?: string; readonly thought?: boolean };
interface Body {
  readonly contents: readonly { readonly role: string; readonly parts: readonly Part[] }[];
  readonly generationConfig: { readonly thinkingConfig: { readonly thinkingLevel: string } };
}

describe("Google's Gemini API through the CLI", () => {
  it("runs a tool session with thinking, sends every signature back in place, resumes without a change and rebuilds every body byte for byte", async () => {
    simulator = await startSimulator({ scenario: { responses: toolSession }, apiKey: KEY });
    const logPath = join(dir, "gemini.jsonl");
    const baseUrl = `${simulator.origin}/v1beta`;
    const env = { env: { GEMINI_API_KEY: KEY }, cwd: dir };
    const run = await runCli(["run", "--provider", "gemini", "--base-url", baseUrl, "--system", SYSTEM, "--log", logPath, "What is here?"], env);
    expect(run.stderr).toContain("turn 0 completed after 3 step(s)");
    expect((await runCli(["resume", logPath, "--provider", "gemini", "--base-url", baseUrl, "Anything new?"], env)).code).toBe(0);

    const bodies = simulator.exchanges.map((exchange) => JSON.parse(exchange.body) as Body);
    expect(bodies).toHaveLength(5);
    for (const body of bodies) expect(body.generationConfig.thinkingConfig.thinkingLevel).toBe("high");
    // Every earlier call goes back signed, in its own part; the thoughts themselves were unsigned and stay in the log.
    const signedCalls = (body: Body) => body.contents.flatMap((content) => content.parts).filter((part) => part.functionCall !== undefined && part.thoughtSignature !== undefined).length;
    expect(bodies.map(signedCalls)).toEqual([0, 1, 2, 2, 3]);
    expect(bodies.every((body) => body.contents.every((content) => content.parts.every((part) => part.thought !== true)))).toBe(true);
    expect(simulator.exchanges.slice(1).every((exchange) => exchange.cacheHitTokens >= 4096)).toBe(true);
    expect(simulator.exchanges[2]!.body).toContain('"args":{"path": "README.md"}');

    const log = await readFile(logPath, "utf8");
    expect(log).not.toContain(KEY);
    const inspect = await runCli(["inspect", logPath], { cwd: dir });
    expect(inspect.stdout.match(/header (\w+)/g)).toEqual(["header initial", "header resume"]);
    expect(inspect.stdout).toContain('reasoningEffort="high" (adapter default)');
    const rebuilt = await runCli(["requests", logPath, "--wire"], { cwd: dir });
    expect(rebuilt.stdout).toBe(simulator.exchanges.map((exchange) => `${exchange.body}\n`).join(""));
    const cache = await runCli(["cache", logPath], { cwd: dir });
    expect(cache.stdout).toContain("5 request(s)");
    expect(cache.stdout).toContain("0 break(s), 0 unexplained");

    // Priced from the catalog; and the same session with another prompt from turn 1 on loses its cache reads there.
    const cost = await runCli(["cost", logPath, "--json"], { cwd: dir });
    expect(cost.code).toBe(0);
    const turn1 = log.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { seq?: number; type?: string }).filter((event) => event.type === "turn/start")[1]!.seq!;
    const whatIf = await runCli(["what-if", logPath, "--at", String(turn1), "--system", "You are brief.", "--json"], { cwd: dir });
    expect(whatIf).toMatchObject({ code: 0, stderr: "" });
    const report = JSON.parse(whatIf.stdout) as { recorded: { totals: { unpriced: number } }; delta: { cacheReadTokens: number } };
    expect(report.recorded.totals.unpriced).toBe(0);
    expect(report.delta.cacheReadTokens).toBeLessThan(0);
  });

  it("runs on the embedded simulator with sim-gemini, and forks its session to another provider and back", async () => {
    const logPath = join(dir, "sim.jsonl");
    expect((await runCli(["run", "--provider", "sim-gemini", "--log", logPath, "What is here?"], { cwd: dir })).code).toBe(0);
    const turnEnd = (await readFile(logPath, "utf8")).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { seq?: number; type?: string }).filter((event) => event.type === "turn/end").at(-1)!.seq!;
    const toChat = join(dir, "chat.jsonl");
    const fork = await runCli(["fork", logPath, "--at", String(turnEnd), "--provider", "sim", "--log", toChat, "Again, briefly."], { cwd: dir });
    expect(fork).toMatchObject({ code: 0 });
    // The fork's log starts with the Gemini requests it copied; its own go to Chat Completions, without Gemini's signatures.
    const chatWire = (await runCli(["requests", toChat, "--wire"], { cwd: dir })).stdout.trim().split("\n").filter((body) => body.startsWith('{"model":"sim-1"'));
    expect(chatWire.length).toBeGreaterThanOrEqual(1);
    for (const body of chatWire) expect(body).not.toContain("thoughtSignature");
    const back = join(dir, "back.jsonl");
    const chatEnd = (await readFile(toChat, "utf8")).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { seq?: number; type?: string }).filter((event) => event.type === "turn/end").at(-1)!.seq!;
    expect(await runCli(["fork", toChat, "--at", String(chatEnd), "--provider", "sim-gemini", "--log", back, "And once more."], { cwd: dir })).toMatchObject({ code: 0 });
    const wire = (await runCli(["requests", back, "--wire"], { cwd: dir })).stdout.trim().split("\n");
    expect(JSON.parse(wire.at(-1)!)).toHaveProperty("contents");
  });

  it("records a Gemini session as a fixture that replays keyless to the same requests, signatures in place", async () => {
    const logPath = join(dir, "fixture-source.jsonl");
    expect((await runCli(["run", "--provider", "sim-gemini", "--log", logPath, "What is here?"], { cwd: dir })).code).toBe(0);
    expect((await runCli(["resume", logPath, "--provider", "sim-gemini", "--effort", "low", "And now?"], { cwd: dir })).code).toBe(0);
    const recorded = await runCli(["fixture", "record", logPath, join(dir, "fixture"), "--tools", "recorded"], { cwd: dir });
    expect(recorded.stderr).toBe("");
    expect(recorded.stdout).toMatch(/fixture fixture: unchanged \((\d+) requests\)\n$/);
    expect(await readFile(join(dir, "fixture", "session.jsonl"), "utf8")).toContain('"thoughtSignature"');
    expect(await runCli(["fixture", "check", join(dir, "fixture")], { cwd: dir })).toMatchObject({ code: 0 });
  });

  it("refuses a retired model before sending anything, and options Gemini has no counterpart for", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "never" }] }, apiKey: KEY });
    const baseUrl = `${simulator.origin}/v1beta`;
    const run = await runCli(["run", "--provider", "gemini", "--base-url", baseUrl, "--model", "gemini-2.5-pro", "--log", join(dir, "r.jsonl"), "hi"], { cwd: dir, env: { GEMINI_API_KEY: KEY } });
    expect(run).toMatchObject({ code: 2, stderr: "dsh: google retired gemini-2.5-pro on 2026-12-01: use gemini-3.8-flash\n" });
    for (const flag of [["--cache-policy", "rolling-v1"], ["--cache-diagnostics"], ["--cache-retention", "24h"]]) {
      expect((await runCli(["run", "--provider", "sim-gemini", ...flag, "--log", join(dir, "x.jsonl"), "hi"], { cwd: dir })).code).toBe(2);
    }
    expect(simulator.exchanges).toHaveLength(0);
    const noKey = await runCli(["run", "--provider", "gemini", "--log", join(dir, "k.jsonl"), "hi"], { cwd: dir, env: { GEMINI_API_KEY: "", DSH_API_KEY: "" } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("GEMINI_API_KEY");
  });
});

describe("a Gemini session in the web app's backend", () => {
  it("shows every request with its exact body and cache reads, and continues the session on the simulator", async () => {
    const store = join(dir, "sessions");
    const run = await runCli(["run", "--provider", "sim-gemini", "--store", store, "--system", SYSTEM, "What is here?"], { cwd: dir });
    expect(run.code).toBe(0);
    const id = /dsh: log: .*\/([^/\s]+)\.jsonl\n/.exec(run.stderr)![1]!;
    const backend = cliBackend(new JsonlStore(store), { cwd: dir, env: {}, stdout: { write: () => true }, stderr: { write: () => true } }, undefined);
    const view = await backend.loadSession(id);
    expect(view.requests.length).toBeGreaterThanOrEqual(2);
    expect(view.requests.every((request) => request.provider === "sim-gemini")).toBe(true);
    // The page asks for a wire body when it is opened.
    const wires = await Promise.all(view.requests.map((request) => backend.requestWire!(id, request.number)));
    expect(wires.every(({ wire }) => wire.startsWith('{"systemInstruction"'))).toBe(true);
    expect(wires[1]!.wire).toContain('"thoughtSignature"');
    expect(view.requests[1]!.tokens.cacheRead).toBeGreaterThanOrEqual(4096);
    expect(view.requests.slice(1).every((request) => request.break === undefined)).toBe(true);
    expect(view.composer).toMatchObject({ provider: "sim-gemini", model: "gemini-3.8-flash" });
    const lines: string[] = [];
    await backend.continueSession!(id, { prompt: "And now?" }, (line) => lines.push(line.type));
    expect(lines.at(-1)).toBe("done");
    expect((await backend.loadSession(id)).requests.length).toBeGreaterThan(view.requests.length);
  });
});
