import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { FsAttachmentStore, putImage } from "dsh-attachments";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { createJsonlLog } from "dsh-log";
import { makePng } from "dsh-testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

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
    expect(await runCli(["run", "--bogus", "x"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: run has no option --bogus (dsh run --help lists its options)\n" });
    expect(await runCli(["cost", "x.jsonl", "--prices"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: Option '--prices <value>' argument missing (dsh cost --help lists its options)\n" });
    expect(await runCli(["run"], { cwd: dir })).toMatchObject({ code: 2, stderr: expect.stringMatching(/missing PROMPT/) });
    expect(await runCli(["run", "--provider", "acme", "x"], { cwd: dir })).toMatchObject({ code: 2 });
  });
});
