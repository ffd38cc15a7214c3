import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createAgentRegistry } from "dsh-agent";
import { startSimulator, type Simulator } from "dsh-simulator";
import { startTestPostgres, type TestPostgres } from "dsh-store-conformance/postgres-server";
import { PostgresStore } from "dsh-store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let server: TestPostgres;
let sim: Simulator;
beforeAll(async () => {
  server = await startTestPostgres();
  sim = await startSimulator({ scenario: { policy: "explore" } });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await server?.stop();
});

const BIN = fileURLToPath(new URL("./bin.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** The installed CLI in a process of its own: one DBOS registration per process, as in real use. */
function dsh(args: readonly string[], cwd: string) {
  const child = spawn(process.execPath, ["--conditions=dsh-source", "--import", TSX, BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited };
}

/** A proxy in front of the simulator that never answers the first request: the worker waits on it until it is killed. */
async function holdingFirstRequest(upstream: string) {
  const bodies: string[] = [];
  const proxy = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      bodies.push(body);
      if (bodies.length === 1) return;
      const answer = await fetch(`${upstream}${request.url ?? ""}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      if (answer.body !== null) for await (const chunk of answer.body) response.write(chunk);
      response.end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise<void>((resolve) => proxy.closeAllConnections() ?? proxy.close(() => resolve())),
  };
}

describe("dsh run --engine dbos", () => {
  it("runs a turn as a workflow on the PostgreSQL store, and dsh recover then finds nothing pending", async () => {
    const url = await server.createDatabase();
    const cwd = mkdtempSync(join(tmpdir(), "dsh-durable-"));
    const run = await dsh(["run", "--engine", "dbos", "--store", url, "--provider", "sim", "--base-url", sim.url, "What is here?"], cwd).exited;
    expect(run.stderr).toMatch(/^dsh: turn 0 completed \(workflow dsh:[0-9a-f-]+:turn:0\)$/m);
    expect(run.stdout).toMatch(/^Let me look around\./);
    expect(run.code).toBe(0);
    const recover = await dsh(["recover", "--engine", "dbos", "--store", url, "--provider", "sim", "--base-url", sim.url], cwd).exited;
    expect(recover).toMatchObject({ code: 0, stderr: expect.stringContaining("dsh: no pending turns") });
    // Only dsh's own lines on stderr: no library's deprecation notice.
    for (const line of `${run.stderr}${recover.stderr}`.trim().split("\n")) expect(line).toMatch(/^dsh: /);
  });

  it("with --subagents runs the delegate's turn as a workflow of its own, in a session linked to the parent, which dsh verify checks", async () => {
    const url = await server.createDatabase();
    const cwd = mkdtempSync(join(tmpdir(), "dsh-durable-"));
    const run = await dsh(["run", "--engine", "dbos", "--subagents", "--store", url, "--provider", "sim", "--base-url", sim.url, "What is here?"], cwd).exited;
    expect(run.stdout, run.stderr).toMatch(/^Let me hand this to a subagent\.A subagent looked around for me\. It reported: I listed the directory/);
    const store = await PostgresStore.connect(url);
    const sessions = await store.list();
    await store.close();
    expect(sessions).toHaveLength(2);
    const parent = run.stderr.match(/workflow dsh:([0-9a-f-]+):turn:0/)![1]!;
    const child = sessions.find((session) => session.sessionId !== parent)!.sessionId;
    const verify = await runCli(["verify", parent, "--store", url], { cwd });
    expect(verify.stdout).toContain(`subagent of ${parent} (its result at seq 7): intact: session ${child}`);
    expect(verify.code).toBe(0);
    const pending = await dsh(["recover", "--engine", "dbos", "--subagents", "--store", url, "--provider", "sim", "--base-url", sim.url], cwd).exited;
    expect(pending.stderr).toContain("dsh: no pending turns");
  });

  it("exits at once, with one line and exit 3, when nothing listens where the store should be", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "dsh-durable-"));
    for (const command of [["run", "What is here?"], ["recover"]]) {
      const ended = await dsh([...command, "--engine", "dbos", "--store", "postgres://dsh:pa55word@127.0.0.1:1/sessions", "--provider", "sim", "--base-url", sim.url], cwd).exited;
      expect(ended).toMatchObject({ code: 3, signal: null, stderr: "dsh: store unavailable: cannot reach the sessions' database postgres://dsh:***@127.0.0.1:1/sessions: connect ECONNREFUSED 127.0.0.1:1 [LOG_STORE_UNAVAILABLE]\n" });
    }
  });

  it("is finished by dsh recover after the worker is killed waiting for an answer, sending that request again byte for byte", async () => {
    const url = await server.createDatabase();
    const cwd = mkdtempSync(join(tmpdir(), "dsh-durable-"));
    const proxy = await holdingFirstRequest(sim.url);
    try {
      const worker = dsh(["run", "--engine", "dbos", "--store", url, "--provider", "sim", "--base-url", proxy.url, "What is here?"], cwd);
      while (proxy.bodies.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      worker.child.kill("SIGKILL");
      expect((await worker.exited).signal).toBe("SIGKILL");
      const recover = await dsh(["recover", "--engine", "dbos", "--store", url, "--provider", "sim", "--base-url", proxy.url], cwd).exited;
      expect(recover.stderr).toMatch(/^dsh: session [0-9a-f-]+ turn 0 completed/m);
      expect(recover.code).toBe(0);
      expect(proxy.bodies).toHaveLength(4);
      expect(proxy.bodies[1]).toBe(proxy.bodies[0]);
      const store = await PostgresStore.connect(url);
      const [session] = await store.list();
      const { log } = await store.read(session!.sessionId, createAgentRegistry());
      await store.close();
      expect(log.slice().filter((event) => event.type === "request/dispatch")).toHaveLength(3);
      expect(log.slice().at(-1)).toMatchObject({ type: "turn/end", data: { reason: "completed" } });
    } finally {
      await proxy.close();
    }
  });
});

describe("the durable flags", () => {
  it("refuse what a durable turn cannot do, in one line each", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "dsh-durable-"));
    const cases: [readonly string[], string][] = [
      [["run", "--engine", "temporal", "hi"], "dsh: --engine takes dbos, not temporal\n"],
      [["run", "--engine", "dbos", "hi"], "dsh: --engine dbos runs on PostgreSQL: give --store postgres://… (or set DSH_STORE)\n"],
      [["run", "--engine", "dbos", "--store", "postgres://u@127.0.0.1:1/x", "--approve", "hi"], "dsh: --approve does not work with --engine dbos yet: it asks at the terminal, which a recovering worker cannot do\n"],
      [["run", "--engine", "dbos", "--store", "postgres://u@127.0.0.1:1/x", "--log", "a.jsonl", "hi"], "dsh: --log writes a JSONL file; --engine dbos runs on a PostgreSQL store\n"],
      [["recover", "--store", "postgres://u@127.0.0.1:1/x"], expect.stringMatching(/^dsh: dsh recover needs --engine dbos\\nusage: dsh recover --engine dbos \[--executor ID\] --store postgres:\/\/… \[--provider /) as unknown as string],
      [["recover", "--engine", "dbos", "extra"], expect.stringMatching(/^dsh: dsh recover takes no arguments/) as unknown as string],
    ];
    for (const [argv, stderr] of cases) expect(await runCli(argv, { cwd }), argv.join(" ")).toMatchObject({ code: 2, stdout: "", stderr });
  });
});
