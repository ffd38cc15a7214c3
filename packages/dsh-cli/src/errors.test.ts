import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { FsAttachmentStore, putImage } from "dsh-attachments";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { createJsonlLog } from "dsh-log";
import { makePng } from "dsh-testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";
import { workspaceTools } from "./workspace-tools.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-cli-errors-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A loopback port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function simLog(name = "session.jsonl"): Promise<string> {
  const path = join(dir, name);
  expect((await runCli(["run", "--log", path, "hello"], { cwd: dir })).code).toBe(0);
  return path;
}

describe("one-line errors with exit codes", () => {
  it("exits 3 for a missing log", async () => {
    const result = await runCli(["requests", "nope.jsonl"], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^dsh: log not found: .*nope\.jsonl does not exist \[LOG_NOT_FOUND\]\n$/);
  });

  it("exits 3 for a corrupt log and names the line", async () => {
    const path = await simLog();
    const lines = (await readFile(path, "utf8")).split("\n");
    // The line keeps its chain link; what follows is no JSON.
    lines[3] = `${lines[3]!.slice(0, 55)} garbage`;
    await writeFile(path, lines.join("\n"));
    for (const command of ["requests", "cache", "inspect"]) {
      const result = await runCli([command, path], { cwd: dir });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^dsh: bad log: line 4: unreadable JSON.* \[LOG_CORRUPT\]\n$/);
    }
  });

  it("reads past a torn last line and says so", async () => {
    const path = await simLog();
    await writeFile(path, `${await readFile(path, "utf8")}{"seq":99,"ty`);
    const result = await runCli(["requests", path], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/ignoring an unacknowledged torn last line/);
  });

  it("exits 4 for a missing or corrupt attachment", async () => {
    const objects = join(dir, "objects");
    const store = new FsAttachmentStore(objects);
    const image = await putImage(store, makePng(4, 4));
    const path = join(dir, "image.jsonl");
    const { log } = await createJsonlLog(path, { registry: createAgentRegistry() });
    const adapter: LlmAdapter = {
      provider: "sim",
      async *stream() {
        yield { type: "text-delta", text: "a grey square" };
        yield { type: "finish", reason: "stop" };
      },
    };
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter] }), config: { provider: "sim", model: "sim-1" } });
    await agent.run([{ type: "text", text: "what is this?" }, { type: "image", image }]);
    await log.close();

    expect((await runCli(["requests", path, "--wire", "--objects", objects], { cwd: dir })).code).toBe(0);
    await writeFile(store.pathOf(image.digest), makePng(4, 4, 0));
    const corrupt = await runCli(["requests", path, "--wire", "--objects", objects], { cwd: dir });
    expect(corrupt).toMatchObject({ code: 4, stderr: expect.stringMatching(/^dsh: attachment: .* \[ATTACHMENT_CORRUPT\]\n$/) });
    await rm(objects, { recursive: true });
    const missing = await runCli(["requests", path, "--wire", "--objects", objects], { cwd: dir });
    expect(missing).toMatchObject({ code: 4, stderr: expect.stringMatching(/^dsh: attachment: .* \[ATTACHMENT_MISSING\]\n$/) });
  });

  it("exits 5 for an unreachable provider, after logging the failed turn", async () => {
    const path = join(dir, "unreachable.jsonl");
    const port = await closedPort();
    const result = await runCli(["run", "--base-url", `http://127.0.0.1:${port}/v1`, "--log", path, "hi"], { cwd: dir });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`dsh: provider unreachable: cannot reach http://127.0.0.1:${port}/v1/chat/completions: ECONNREFUSED [LLM_NETWORK]\n`);
    expect(await readFile(path, "utf8")).toContain('"type":"turn/end"');
  });

  it("exits 2 for usage errors", async () => {
    expect((await runCli([], { cwd: dir })).code).toBe(2);
    expect(await runCli(["frobnicate"], { cwd: dir })).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: unknown command frobnicate/) });
    expect(await runCli(["run", "--max-steps", "0", "x"], { cwd: dir })).toMatchObject({ code: 2 });
    expect(await runCli(["run", "--bogus", "x"], { cwd: dir })).toMatchObject({ code: 2, stderr: expect.stringMatching(/--bogus/) });
    expect(await runCli(["run"], { cwd: dir })).toMatchObject({ code: 2, stderr: expect.stringMatching(/missing PROMPT/) });
    expect(await runCli(["run", "--provider", "acme", "x"], { cwd: dir })).toMatchObject({ code: 2 });
  });
});

describe("workspace tools", () => {
  it("read and list inside the working directory only, symlinks included", async () => {
    const root = join(dir, "root");
    await mkdir(join(root, "sub"), { recursive: true });
    await writeFile(join(root, "a.txt"), "alpha");
    await writeFile(join(dir, "secret.txt"), "outside");
    await symlink(join(dir, "secret.txt"), join(root, "link.txt"));
    const [listDir, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    const text = async (tool: typeof listDir, args: object) => JSON.stringify((await tool!.invoke(JSON.stringify(args), context)).content);
    expect(await text(listDir, { path: "." })).toContain("a.txt\\nlink.txt\\nsub/");
    expect(await text(readFileTool, { path: "a.txt" })).toContain("alpha");
    expect(await text(readFileTool, { path: "../secret.txt" })).toContain("outside the working directory");
    expect(await text(readFileTool, { path: "link.txt" })).toContain("outside the working directory");
    expect(await text(readFileTool, { path: "/etc/passwd" })).toContain("outside the working directory");
    expect(await text(readFileTool, { path: "missing.txt" })).toContain("does not exist");
    expect(await text(listDir, { path: "a.txt" })).toContain("is not a directory");
  });

  it("keep dsh's own session store out of the view: not listed, not readable, also through a symlink", async () => {
    const root = join(dir, "with-store");
    await mkdir(join(root, ".dsh", "sessions"), { recursive: true });
    await writeFile(join(root, ".dsh", "sessions", "s.jsonl"), "a session log");
    await writeFile(join(root, "a.txt"), "alpha");
    await symlink(join(root, ".dsh", "sessions", "s.jsonl"), join(root, "alias.txt"));
    const [listDir, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    const text = async (tool: typeof listDir, args: object) => JSON.stringify((await tool!.invoke(JSON.stringify(args), context)).content);
    expect(await text(listDir, { path: "." })).toBe(JSON.stringify([{ type: "text", text: "a.txt\nalias.txt" }]));
    for (const path of [".dsh", ".dsh/sessions", "./.dsh/sessions/"]) expect(await text(listDir, { path })).toContain(`${path} does not exist`);
    for (const path of [".dsh/sessions/s.jsonl", "alias.txt"]) expect(await text(readFileTool, { path })).toContain(`${path} does not exist`);
  });

  it("never read outside while a path component is swapped between an inside directory and a symlink to an outside one", async () => {
    const root = join(dir, "race");
    await mkdir(join(root, "d"), { recursive: true });
    await mkdir(join(dir, "elsewhere"), { recursive: true });
    await writeFile(join(root, "d", "file.txt"), "inside");
    await writeFile(join(dir, "elsewhere", "file.txt"), "OUTSIDE-SECRET");
    const [, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    // Another process swaps the component as fast as it can, as an attacker would.
    const swap = `const fs = require("node:fs"); for (;;) { fs.renameSync("d", "d.real"); fs.symlinkSync(process.argv[1], "d"); fs.unlinkSync("d"); fs.renameSync("d.real", "d"); }`;
    const swapper = spawn(process.execPath, ["-e", swap, join(dir, "elsewhere")], { cwd: root, stdio: "ignore" });
    const results = [];
    for (let i = 0; i < 2000; i++) results.push(JSON.stringify((await readFileTool!.invoke('{"path":"d/file.txt"}', context)).content));
    swapper.kill("SIGKILL");
    expect(results.filter((result) => result.includes("OUTSIDE-SECRET"))).toEqual([]);
    expect(results.some((result) => result.includes("inside"))).toBe(true);
  });

  it("reads only what it returns from a large file, and refuses FIFOs and devices without hanging", async () => {
    const root = join(dir, "big");
    await mkdir(root, { recursive: true });
    await writeFile(join(root, "big.txt"), "x".repeat(200_000));
    execFileSync("mkfifo", [join(root, "pipe")]);
    await symlink("/dev/zero", join(root, "zero"));
    const [, readFileTool] = workspaceTools(root);
    const context = { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal };
    const big = (await readFileTool!.invoke('{"path":"big.txt"}', context)).content[0] as { text: string };
    expect(big.text).toBe(`${"x".repeat(64 * 1024)}\n[truncated: 200000 bytes in all]`);
    expect(JSON.stringify((await readFileTool!.invoke('{"path":"pipe"}', context)).content)).toContain("pipe is not a regular file");
    expect(JSON.stringify((await readFileTool!.invoke('{"path":"zero"}', context)).content)).toContain("outside the working directory");
  });
});
