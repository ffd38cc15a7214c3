import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { createAgentRegistry } from "dsh-agent";
import { startSimulator, type Simulator } from "dsh-simulator";
import { SqliteStore } from "dsh-store-sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
let sim: Simulator;
let gate: Server;
/** Resolves when a request reaches the gate; the gate holds it until `release` is called. */
let arrived: Promise<void>;
let release: () => void;

function closeGate(): void {
  let arrive!: () => void;
  arrived = new Promise((resolve) => (arrive = resolve));
  const opened = new Promise<void>((resolve) => (release = resolve));
  gate.removeAllListeners("request");
  gate.on("request", (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      arrive();
      void opened.then(async () => {
        const answer = await fetch(`${sim.url}${request.url!.replace(/^\/v1/, "")}`, { method: "POST", body: Buffer.concat(chunks) });
        response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/event-stream" });
        response.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-takeover-"));
  sim = await startSimulator({ scenario: { responses: [{ text: "The first answer." }, { text: "An answer this writer may not log." }] } });
  gate = createServer();
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
  return async () => {
    await new Promise((resolve) => gate.close(resolve));
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  };
});
afterEach(() => gate.closeAllConnections());

it("tells a resume that lost its SQLite session to another writer so before it shows any answer", async () => {
  const url = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/v1`;
  const store = `sqlite:${join(dir, "sessions.db")}`;
  closeGate();
  release();
  const first = await runCli(["run", "--store", store, "--base-url", url, "Hello?"], { cwd: dir });
  expect(first).toMatchObject({ code: 0, stdout: "The first answer.\n" });
  const id = /dsh: log: .*#([^\s#]+)\n/.exec(first.stderr)![1]!;

  closeGate();
  const resumed = runCli(["resume", "--store", store, "--base-url", url, id, "And now?"], { cwd: dir });
  await arrived;
  // While the resume waits for its answer, another writer opens the session.
  const other = new SqliteStore(join(dir, "sessions.db"));
  const taken = await other.open(id, { registry: createAgentRegistry() });
  release();
  const loser = await resumed;
  expect(loser.stdout).toBe("");
  expect(loser.code).not.toBe(0);
  expect(loser.stderr).toMatch(/LOG_CONFLICT/);
  expect(loser.stderr).toMatch(/was opened by another writer/);
  expect(loser.stderr).not.toMatch(/LOG_SINK_FAILED|could not be made durable/);
  // The session holds nothing of the lost turn's answer, and the new writer goes on.
  expect(taken.log.slice().some((event) => JSON.stringify(event.data).includes("may not log"))).toBe(false);
  await taken.log.close();
  await other.close();
});
