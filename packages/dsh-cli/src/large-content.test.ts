import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createAgentRegistry, requestDispatchEvent, stepEndEvent, stepStartEvent, turnEndEvent, turnStartEvent } from "dsh-agent";
import { buildEpochHeader, requestHeaderEvent } from "dsh-header";
import { createJsonlLog } from "dsh-log";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFile, mkdir } from "node:fs/promises";
import { startDshWeb } from "./test-support/web-server.js";
import { runCli } from "./test-support/run-cli.js";

/** Each of the prompt, the tool result and the answer, in bytes. */
const SIZE = 8_000_000;
/**
 * Peak memory a command may add, as a multiple of the log's size. Seen here: inspect 2.3, requests 3.9,
 * requests --wire 3.1, cache 7.8 and view 9.5 (both tokenize every prompt), copy 6.0.
 */
const BOUND = 12;

const run = promisify(execFile);
const measure = fileURLToPath(new URL("./test-support/measure-cli.ts", import.meta.url));
const big = (seed: string) => {
  const unit = `${seed} lorem ipsum dolor sit amet ${seed}\n`;
  return unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
};

let dir: string;
let logBytes: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-large-"));
  const { log } = await createJsonlLog(join(dir, "large.jsonl"), { registry: createAgentRegistry() });
  const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, { maxTokens: 4096 }, [{ name: "probe", description: "Probe", parameters: { type: "object", properties: {} } }]);
  const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 64, cacheWriteTokens: 0 };
  await log.append([
    turnStartEvent.input({ turn: 0 }),
    stepStartEvent.input({ turn: 0, step: 0 }),
    systemMessageEvent.input({ content: "You read large things.", source: "system-prompt" }),
    userMessageEvent.input({ content: [{ type: "text", text: big("prompt") }], source: "user" }),
    requestHeaderEvent.input({ reason: "initial", header }),
    requestDispatchEvent.input({ turn: 0, step: 0 }),
    assistantMessageEvent.input({ content: [{ type: "tool-call", callId: "c1", name: "probe", arguments: "{}" }], source: "model" }),
    stepEndEvent.input({ turn: 0, step: 0, reason: "completed", finishReason: "tool-calls", usage }),
  ]);
  await log.append(toolResultEvent.input({ callId: "c1", toolName: "probe", content: [{ type: "text", text: big("result") }], isError: false, source: "tool" }));
  await log.append([
    stepStartEvent.input({ turn: 0, step: 1 }),
    requestDispatchEvent.input({ turn: 0, step: 1 }),
    assistantMessageEvent.input({ content: [{ type: "text", text: big("answer") }], source: "model" }),
    stepEndEvent.input({ turn: 0, step: 1, reason: "completed", finishReason: "stop", usage }),
    turnEndEvent.input({ turn: 0, reason: "completed" }),
  ]);
  await log.close();
  logBytes = (await stat(join(dir, "large.jsonl"))).size;
  await writeFile(join(dir, "prompt.txt"), big("typed"));
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function dsh(stdin: string, ...argv: string[]): Promise<{ code: number; bytes: number; growth: number; errors: string }> {
  const { stdout } = await run(process.execPath, ["--conditions=dsh-source", "--import", "tsx", measure, dir, stdin, ...argv], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as { code: number; bytes: number; growth: number; errors: string };
}

describe("a prompt, a tool result and an answer of 8 MB each", () => {
  it.each([
    ["inspect", ["inspect", "large.jsonl"]],
    ["requests", ["requests", "large.jsonl"]],
    ["requests --wire", ["requests", "--wire", "large.jsonl"]],
    ["cache", ["cache", "large.jsonl"]],
    ["cost", ["cost", "large.jsonl"]],
    ["view", ["view", "large.jsonl", "-o", "large.html"]],
    ["copy", ["copy", "large.jsonl", "copied.jsonl"]],
  ])("pass through dsh %s with memory bounded by a small multiple of the log", async (_name, argv) => {
    const result = await dsh("-", ...argv);
    expect(result, result.errors).toMatchObject({ code: 0 });
    expect(result.growth / logBytes).toBeLessThan(BOUND);
  }, 120_000);

  it("a typed prompt of that size runs a turn on the embedded simulator", async () => {
    const result = await dsh(join(dir, "prompt.txt"), "run", "--log", "typed.jsonl", "-");
    expect(result, result.errors).toMatchObject({ code: 0 });
    expect(result.growth / SIZE).toBeLessThan(BOUND * 3);
  }, 120_000);
});

describe("the web server with a large session in its store", () => {
  it("answers for a small session while it builds the large one's page", async () => {
    const store = join(dir, "store");
    await mkdir(store);
    await copyFile(join(dir, "large.jsonl"), join(store, "large.jsonl"));
    const small = await runCli(["run", "--store", store, "Hello?"], { cwd: dir });
    expect(small.code, small.stderr).toBe(0);
    const smallId = /dsh: log: .*\/([^/]+)\.jsonl\n/.exec(small.stderr)![1]!;
    const largeId = (await runCli(["sessions", "--store", store, "--json"], { cwd: dir })).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { sessionId: string })
      .find((session) => session.sessionId !== smallId)!.sessionId;
    const web = await startDshWeb(dir, ["--store", store]);
    try {
      const finished: string[] = [];
      const get = (id: string) => fetch(`${web.url}api/sessions/${id}`, { headers: web.auth }).then(async (response) => {
        expect(response.status).toBe(200);
        await response.text();
        finished.push(id === smallId ? "small" : "large");
      });
      const large = get(largeId);
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([get(smallId), large]);
      expect(finished).toEqual(["small", "large"]);
    } finally {
      await web.stop();
    }
  }, 120_000);
});
