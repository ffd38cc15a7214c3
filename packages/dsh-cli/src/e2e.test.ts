import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createAgentRegistry } from "dsh-agent";
import { createJsonlLog, readJsonlLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-cli-"));
  await mkdir(join(dir, "project", "docs"), { recursive: true });
  await writeFile(join(dir, "project", "README.md"), "# Sample project\n\nIt has docs.\n");
  await writeFile(join(dir, "project", "docs", "guide.md"), "A guide.\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const project = () => join(dir, "project");

async function scenario(responses: readonly (object | undefined)[]): Promise<string> {
  const path = join(dir, `scenario-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify({ responses }));
  return path;
}

const multiStep = [
  { text: "Looking.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { toolCalls: [{ name: "read_file", arguments: { path: "README.md" } }, { name: "list_dir", arguments: { path: "docs" } }] },
  { toolCalls: [{ name: "read_file", arguments: { path: "docs/guide.md" } }] },
  { text: "A sample project with a guide." },
];

async function stepUsages(logPath: string) {
  const { log } = await readJsonlLog(logPath, createAgentRegistry());
  return log.slice().flatMap((event) =>
    event.type === "step/end" ? [(event.data as { usage?: { cacheReadTokens: number; inputTokens: number } }).usage] : [],
  );
}

describe("dsh run → dsh requests --wire", () => {
  it("rebuilds, byte for byte, every body the simulator received over HTTP, with cache reads after the first", async () => {
    const logPath = join(dir, "session.jsonl");
    const wirePath = join(dir, "received.jsonl");
    const run = await runCli(["run", "--scenario", await scenario(multiStep), "--log", logPath, "--record-wire", wirePath, "What is here?"], {
      cwd: project(),
    });
    expect(run.stderr).toContain("turn 0 completed after 4 step(s)");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("A sample project with a guide.");

    const requests = await runCli(["requests", logPath, "--wire"], { cwd: project() });
    expect(requests.code).toBe(0);
    const received = (await readFile(wirePath, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as string);
    expect(requests.stdout).toBe(received.map((body) => `${body}\n`).join(""));
    expect(received).toHaveLength(4);

    const usages = await stepUsages(logPath);
    expect(usages).toHaveLength(4);
    expect(usages[0]!.cacheReadTokens).toBe(0);
    for (const usage of usages.slice(1)) expect(usage!.cacheReadTokens).toBeGreaterThan(0);

    const cache = await runCli(["cache", logPath], { cwd: project() });
    expect(cache.code).toBe(0);
    expect(cache.stdout).toContain("0 break(s), 0 unexplained");
    const inspect = await runCli(["inspect", logPath], { cwd: project() });
    expect(inspect.stdout).toContain("header initial: provider=\"sim\" model=\"sim-1\" maxTokens=4096 (adapter default)");
    const json = await runCli(["requests", logPath], { cwd: project() });
    expect(json.stdout.trimEnd().split("\n").map((line) => JSON.parse(line).step)).toEqual([0, 1, 2, 3]);
  });

  it("prints only the request dispatched at --seq N, or the last with --last, and refuses a seq that dispatched none", async () => {
    const logPath = join(dir, "chosen.jsonl");
    const wirePath = join(dir, "chosen-received.jsonl");
    await runCli(["run", "--scenario", await scenario(multiStep), "--log", logPath, "--record-wire", wirePath, "What is here?"], { cwd: project() });
    const received = (await readFile(wirePath, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as string);
    const all = (await runCli(["requests", logPath], { cwd: project() })).stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { seq: number });
    const third = await runCli(["requests", logPath, "--seq", String(all[2]!.seq)], { cwd: project() });
    expect(third).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(third.stdout)).toEqual(all[2]);
    expect(third.stdout.trimEnd().split("\n")).toHaveLength(1);
    const last = await runCli(["requests", logPath, "--last", "--wire"], { cwd: project() });
    expect(last.stdout).toBe(`${received.at(-1)}\n`);
    const none = await runCli(["requests", logPath, "--seq", String(all[2]!.seq + 1)], { cwd: project() });
    // A seq that names no dispatch is a bad argument, as for dsh prove, fork and what-if: exit 2.
    expect(none).toMatchObject({ code: 2, stdout: "" });
    expect(none.stderr).toBe(`dsh: seq ${all[2]!.seq + 1} is not where a request was dispatched (dsh requests LOG lists them)\n`);
    const emptyPath = join(dir, "empty.jsonl");
    await (await createJsonlLog(emptyPath, { registry: createAgentRegistry() })).log.close();
    expect(await runCli(["requests", emptyPath, "--last"], { cwd: project() })).toMatchObject({ code: 1, stdout: "", stderr: "dsh: the log holds no request\n" });
    for (const bad of [["--seq", "x"], ["--seq", "-1"], ["--seq", "1", "--last"]]) {
      expect(await runCli(["requests", logPath, ...bad], { cwd: project() })).toMatchObject({ code: 2, stdout: "" });
    }
  });

  it("works as a real process too", async () => {
    const bin = fileURLToPath(new URL("./bin.ts", import.meta.url));
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const logPath = join(dir, "process.jsonl");
    const child = spawnSync(process.execPath, ["--conditions=dsh-source", "--import", tsx, bin, "run", "--log", logPath, "Look around"], {
      cwd: project(),
      encoding: "utf8",
      env: { PATH: process.env.PATH },
    });
    expect(child.stderr).toContain("turn 0 completed");
    expect(child.status).toBe(0);
    expect(child.stdout).toContain("It begins: # Sample project");
  });
});

describe("fault injection", () => {
  it.each([["http-429"], ["http-500"], ["truncate"], ["malformed"], ["stall"]])(
    "retries a %s with a logged request/retry and leaves a sound log",
    async (fault) => {
      const logPath = join(dir, `${fault}.jsonl`);
      const wirePath = join(dir, `${fault}.wire`);
      const responses = [multiStep[0], { fault }, ...multiStep.slice(1)];
      const run = await runCli(
        ["run", "--scenario", await scenario(responses), "--timeout", "300", "--log", logPath, "--record-wire", wirePath, "go"],
        { cwd: project() },
      );
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/retry 1 in \d+ ms after LLM_/);
      const { log, tornTail } = await readJsonlLog(logPath, createAgentRegistry());
      expect(tornTail).toBeUndefined();
      expect(log.slice().filter((event) => event.type === "request/retry")).toHaveLength(1);
      // The retried attempt sent the same bytes again: five bodies received, four distinct requests rebuilt.
      const received = (await readFile(wirePath, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as string);
      expect(received[1]).toBe(received[2]);
      const wire = await runCli(["requests", logPath, "--wire"], { cwd: project() });
      expect(wire.stdout).toBe([received[0], ...received.slice(2)].map((body) => `${body}\n`).join(""));
    },
    15_000,
  );

  it("exits 5 when retries run out, with the failure logged and the log intact", async () => {
    const logPath = join(dir, "exhausted.jsonl");
    const run = await runCli(["run", "--scenario", await scenario([{ fault: "http-500" }, { fault: "http-500" }, { fault: "http-500" }]), "--log", logPath, "go"], {
      cwd: project(),
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/^dsh: provider error: .*HTTP 500.* \[LLM_SERVER_ERROR\]$/m);
    const { log } = await readJsonlLog(logPath, createAgentRegistry());
    expect(log.slice().slice(-2).map((event) => [event.type, (event.data as { reason: string }).reason])).toEqual([
      ["step/end", "error"],
      ["turn/end", "error"],
    ]);
  });
});

describe("credentials", () => {
  it("never writes the API key into any file", async () => {
    const key = "sk-cli-secret-0f1e2d3c4b5a69788796a5b4";
    const simulator = await startSimulator({ scenario: { responses: multiStep }, apiKey: key });
    try {
      const logPath = join(dir, "keyed.jsonl");
      const run = await runCli(["run", "--provider", "deepseek", "--base-url", simulator.url, "--log", logPath, "go"], {
        cwd: project(),
        env: { DEEPSEEK_API_KEY: key },
      });
      expect(run.code).toBe(0);
      await runCli(["cache", logPath], { cwd: project() });
      expect(`${run.stdout}${run.stderr}`).not.toContain(key);
      for (const file of await readdir(dir, { recursive: true })) {
        const path = join(dir, file);
        const text = await readFile(path, "utf8").catch(() => "");
        expect(text).not.toContain(key);
      }
    } finally {
      await simulator.close();
    }
  });

  it("asks for a key instead of calling a real provider without one", async () => {
    const run = await runCli(["run", "--provider", "deepseek", "hi"], { cwd: project() });
    expect(run).toMatchObject({ code: 2, stderr: "dsh: no API key for deepseek: set DSH_API_KEY or DEEPSEEK_API_KEY\n" });
  });
});
