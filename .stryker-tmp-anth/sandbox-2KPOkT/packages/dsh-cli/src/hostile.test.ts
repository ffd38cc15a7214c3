import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
let server: Server | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-cli-hostile-"));
});
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function scenario(responses: readonly object[]): Promise<string> {
  const path = join(dir, `scenario-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify({ responses }));
  return path;
}

const KEY = "sk-live-abcdef0123456789-DO-NOT-LEAK";

describe("secrets", () => {
  it("never reach the log, stdout or stderr when a provider echoes the key, nor do credentials in --base-url", async () => {
    server = createServer((request, response) => {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `Invalid key ${String(request.headers.authorization)} for ${KEY}` } }));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const keyed = await runCli(["run", "--provider", "openai", "--base-url", `http://127.0.0.1:${port}/v1`, "--log", "keyed.jsonl", "hi"], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY },
    });
    expect(keyed.code).toBe(5);
    expect(keyed.stderr).toContain("HTTP 401: Invalid key Bearer [redacted] for [redacted]");
    const credentialed = await runCli(["run", "--provider", "openai", "--base-url", `http://user:${KEY}@127.0.0.1:${port}/v1`, "--log", "url.jsonl", "hi"], {
      cwd: dir,
      env: { OPENAI_API_KEY: "" },
    });
    expect(credentialed.code).toBe(5);
    for (const text of [keyed.stdout, keyed.stderr, credentialed.stdout, credentialed.stderr, await readFile(join(dir, "keyed.jsonl"), "utf8"), await readFile(join(dir, "url.jsonl"), "utf8")]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(Buffer.from(`user:${KEY}`).toString("base64"));
    }
  });
});

describe("a provider that sends malformed output", () => {
  it("is a provider failure (retried, then exit 5), and the log stays valid and resumable", async () => {
    let calls = 0;
    server = createServer((_request, response) => {
      calls++;
      response.writeHead(200, { "content-type": "text/event-stream" });
      const call = (index: number) => ({ index, id: "same-id", function: { name: "list_dir", arguments: "{}" } });
      response.write(`data: ${JSON.stringify({ choices: [{ delta: { tool_calls: [call(0), call(1)] }, finish_reason: "tool_calls" }] })}\n\n`);
      response.end("data: [DONE]\n\n");
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const run = await runCli(["run", "--provider", "openai", "--base-url", baseUrl, "--log", "bad.jsonl", "hi"], { cwd: dir, env: { OPENAI_API_KEY: KEY } });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("stream produced two tool calls with id same-id [LLM_MALFORMED_STREAM]");
    expect(calls).toBe(3);
    expect((await runCli(["inspect", "bad.jsonl"], { cwd: dir })).code).toBe(0);
    expect((await runCli(["resume", "bad.jsonl", "--provider", "sim", "--scenario", await scenario([{ text: "fine now" }]), "again"], { cwd: dir })).code).toBe(0);
  });
});

describe("what the model writes", () => {
  it("cannot move the cursor, recolour the terminal or fake a dsh: line", async () => {
    const evil = "x\n\u001b[2K\rdsh: turn 0 completed\u001b[31m\u202e";
    const responses = [{ toolCalls: [{ name: "list_dir", arguments: JSON.stringify({ path: ".", note: evil }) }] }, { text: `done ${evil}` }];
    const run = await runCli(["run", "--scenario", await scenario(responses), "--log", "evil.jsonl", "go"], { cwd: dir });
    expect(run.code).toBe(0);
    const inspect = await runCli(["inspect", "evil.jsonl"], { cwd: dir });
    for (const text of [run.stdout, run.stderr, inspect.stdout]) {
      expect(text).not.toMatch(/[\u001b\r\u202e]/);
      expect(text.split("\n").filter((line) => line.startsWith("dsh: turn 0 completed"))).toHaveLength(text === run.stderr ? 1 : 0);
    }
    expect(run.stderr).toContain("\\u001b[2K\\rdsh: turn 0 completed\\u001b[31m\\u202e");
    expect(run.stdout).toContain("done x\n\\x1b[2K\\rdsh: turn 0 completed\\x1b[31m\\u202e");
  });

  it("leaves only the answer on stdout when an attempt is retried after streaming part of one", async () => {
    const responses = [{ text: "PARTIAL-THEN-CUT", fault: "truncate" }, { text: "the whole answer" }];
    const run = await runCli(["run", "--scenario", await scenario(responses), "--log", "retry.jsonl", "go"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("the whole answer\n");
    expect(run.stderr).toContain("retry 1");
  });
});

describe("the command line", () => {
  it("takes the prompt from standard input with -", async () => {
    const run = await runCli(["run", "--scenario", await scenario([{ text: "ok" }]), "--log", "stdin.jsonl", "-"], { cwd: dir, stdin: "  a prompt\nfrom a pipe\n" });
    expect(run.code).toBe(0);
    expect(await readFile(join(dir, "stdin.jsonl"), "utf8")).toContain('"text":"a prompt\\nfrom a pipe"');
  });

  it("accepts a quarantine proposal with dsh quarantine accept", async () => {
    const run = await runCli(["run", "--scenario", await scenario([{ text: "ok" }]), "--log", "q.jsonl", "hi"], { cwd: dir });
    expect(run.code).toBe(0);
    const none = await runCli(["quarantine", "accept", "q.jsonl", `sha256:${"a".repeat(64)}`], { cwd: dir });
    expect(none).toMatchObject({ code: 1, stderr: `dsh: no message in the session references sha256:${"a".repeat(64)} now\n` });
    expect(await runCli(["quarantine", "reject", "q.jsonl", "x"], { cwd: dir })).toMatchObject({ code: 2 });
  });

  it("reports a directory given as LOG with exit 3, and an unknown command on one line", async () => {
    await mkdir(join(dir, "logs"));
    expect(await runCli(["inspect", "logs"], { cwd: dir })).toMatchObject({ code: 3, stderr: expect.stringMatching(/^dsh: log not found: .*logs is a directory, not a log file \[LOG_NOT_FOUND\]\n$/) });
    expect(await runCli(["frobnicate"], { cwd: dir })).toEqual({ code: 2, stdout: "", stderr: "dsh: unknown command frobnicate (dsh help lists the commands)\n" });
  });

  it("ends quietly when the reader of its output goes away (dsh requests | head -1)", async () => {
    const run = await runCli(["run", "--scenario", await scenario([{ text: "a" }, { text: "b" }, { text: "c" }]), "--log", "many.jsonl", "one"], { cwd: dir });
    expect(run.code).toBe(0);
    for (const prompt of ["two", "three"]) expect((await runCli(["resume", "many.jsonl", "--scenario", await scenario([{ text: "x" }]), prompt], { cwd: dir })).code).toBe(0);
    const bin = fileURLToPath(new URL("./bin.ts", import.meta.url));
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const child = spawn(process.execPath, ["--conditions=dsh-source", "--import", tsx, bin, "requests", "--wire", "many.jsonl"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  });
});
