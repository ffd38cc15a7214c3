import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
import { makePng } from "dsh-testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CacheRow } from "dsh-cache-report";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-claude-"));
  await mkdir(join(dir, "project"), { recursive: true });
  await writeFile(join(dir, "project", "README.md"), "# Sample\n");
  await writeFile(join(dir, "project", "shot.png"), makePng(3, 2));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cwd = () => join(dir, "project");
const system = "You are a meticulous assistant who reads before answering. ".repeat(120);
const cli = (...argv: string[]) => runCli(argv, { cwd: cwd() });

async function scenario(name: string, responses: readonly object[]): Promise<string> {
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify({ responses }));
  return path;
}

const toolTurn = [
  { reasoning: "The picture first, then the files.", text: "Looking.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { reasoning: "Read the readme.", toolCalls: [{ name: "read_file", arguments: { path: "README.md" } }] },
  { text: "A sample project and a small picture." },
];

async function received(path: string): Promise<string> {
  return (await readFile(path, "utf8"))
    .trimEnd()
    .split("\n")
    .map((line) => `${JSON.parse(line) as string}\n`)
    .join("");
}

async function rows(log: string): Promise<CacheRow[]> {
  const result = await cli("cache", log, "--json");
  return result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as CacheRow);
}

describe("a Claude session on the Messages API simulator", () => {
  it("runs a tool session with thinking and an image, rebuilds every body byte for byte, and reads the cache after the first request", async () => {
    const log = join(dir, "claude.jsonl");
    const wire = join(dir, "wire.jsonl");
    const common = ["--provider", "sim-anthropic", "--thinking", "on", "--system", system];
    const run = await cli("run", ...common, "--image", "shot.png", "--scenario", await scenario("one", toolTurn), "--log", log, "--record-wire", wire, "What is here?");
    expect(run.stderr).toContain("turn 0 completed after 3 step(s)");
    expect(run.code).toBe(0);
    expect((await cli("requests", log, "--wire")).stdout).toBe(await received(wire));

    const first = JSON.parse((await received(wire)).split("\n")[0]!) as { messages: { content: { type: string }[] }[]; thinking: unknown };
    expect(first.messages[0]!.content.map((block) => block.type)).toEqual(["text", "image"]);
    expect(first.thinking).toEqual({ type: "adaptive" });
    const { log: events } = await readJsonlLog(log, createAgentRegistry());
    const header = events.slice().find((event) => event.type === "request/header")!.data as { header: { adapterDefaults: object } };
    expect(header.header.adapterDefaults).toEqual({ maxTokens: 16_384, cachePolicy: "rolling-v1", cacheTtl: "5m" });
    const answers = events.slice().filter((event) => event.type === "assistant/message").map((event) => (event.data as { content: { type: string; signature?: string }[] }).content[0]!);
    expect(answers.every((block) => block.type === "reasoning" && typeof block.signature === "string")).toBe(true);

    const report = await rows(log);
    expect(report.map((row) => row.cacheReadTokens)).toEqual([0, report[0]!.promptTokens, report[1]!.promptTokens]);
    expect(report.every((row) => !row.isBreak && row.misses.length === 0)).toBe(true);

    // Resume on the same settings: the resumed request repeats the last one, so by the rules it reads all of it
    // (the embedded simulator restarted with an empty cache, so its own report says 0).
    const again = await cli("resume", log, ...common, "--scenario", await scenario("two", [{ text: "Still the same." }]), "--record-wire", join(dir, "wire2.jsonl"), "Anything new?");
    expect(again.code).toBe(0);
    const resumed = (await rows(log)).find((row) => row.turn === 1)!;
    expect(resumed).toMatchObject({ isBreak: false, misses: [], stableTokens: report[2]!.promptTokens });
    expect((await cli("requests", log, "--wire")).stdout.endsWith(await received(join(dir, "wire2.jsonl")))).toBe(true);
  });

  it("forks with another breakpoint policy, logged as attributable drift, and says why the fork reads less", async () => {
    const log = join(dir, "parent.jsonl");
    const common = ["--provider", "sim-anthropic", "--system", system];
    expect((await cli("run", ...common, "--scenario", await scenario("p", toolTurn), "--log", log, "Look around.")).code).toBe(0);
    const { log: parent } = await readJsonlLog(log, createAgentRegistry());
    const end = parent.slice().findLast((event) => event.type === "turn/end")!.seq;
    const fork = join(dir, "fork.jsonl");
    const wire = join(dir, "fork-wire.jsonl");
    const forked = await cli("fork", log, "--at", String(end), "--log", fork, ...common, "--cache-policy", "system-and-last-user-v1", "--cache-ttl", "1h", "--scenario", await scenario("f", toolTurn), "--record-wire", wire, "Now the other way.");
    expect(forked.code).toBe(0);
    expect((await cli("requests", fork, "--wire")).stdout.endsWith(await received(wire))).toBe(true);
    const inspect = await cli("inspect", fork);
    expect(inspect.stdout).toMatch(/header resume: .*cachePolicy="system-and-last-user-v1" cacheTtl="1h"/);
    const forkRows = (await rows(fork)).filter((row) => row.turn === 1);
    // The common policy marks only the system prompt and the new user turn: from the second tool step on,
    // the steps before are not read, and the report says why.
    expect(forkRows[1]!.cacheReadTokens).toBe(forkRows[0]!.promptTokens);
    expect(forkRows[2]!.cacheReadTokens).toBeLessThan(forkRows[1]!.promptTokens);
    expect(forkRows[2]!.misses).toEqual([expect.stringMatching(/^unmarked: the previous request wrote nothing past block \d+ \(\d+ of \d+ repeated tokens\)$/)]);
  });
});
