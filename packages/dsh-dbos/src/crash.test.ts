import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry, reconstructRequests } from "dsh-agent";
import { serializeRequest } from "dsh-openai-compatible";
import type { LogEvent } from "dsh-log";
import { startSimulator, type Simulator } from "dsh-simulator";
import { PostgresStore } from "dsh-store-postgres";
import { startTestPostgres, type TestPostgres } from "dsh-store-conformance/postgres-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutReports } from "./test-support/compare.js";
import { runWorker } from "./test-support/run-worker.js";

const INPUT = "What is in the directory?";

let server: TestPostgres;
const simulators: Simulator[] = [];
/** The uncrashed run: its log and the bodies the provider received, in order. */
let reference: { events: LogEvent[]; bodies: string[] };

/** A database and a simulator of its own, and the worker environment that points at them. */
async function world(extra: Record<string, string> = {}) {
  const url = await server.createDatabase();
  const sim = await startSimulator({ scenario: { policy: "explore" } });
  simulators.push(sim);
  return { url, sim, env: { DATABASE_URL: url, SIM_URL: sim.url, SESSION: "s", INPUT, ...extra } };
}

async function sessionEvents(url: string): Promise<LogEvent[]> {
  const store = await PostgresStore.connect(url);
  try {
    return (await store.read("s", createAgentRegistry())).log.slice();
  } finally {
    await store.close();
  }
}

/** Bodies in order with each run of identical bodies (a request sent again) kept once. */
function distinct(bodies: readonly string[]): string[] {
  return bodies.filter((body, i) => i === 0 || body !== bodies[i - 1]);
}

beforeAll(async () => {
  server = await startTestPostgres();
  const { url, sim, env } = await world();
  const run = await runWorker({ ...env, MODE: "start" });
  expect(run.result).toMatchObject({ outcomes: [{ reason: "completed", turn: 0 }] });
  reference = { events: await sessionEvents(url), bodies: sim.exchanges.map((exchange) => exchange.body) };
  expect(reference.bodies).toHaveLength(3);
}, 120_000);
afterAll(async () => {
  for (const sim of simulators) await sim.close();
  await server?.stop();
});

/** Kills a worker at `at` (its `nth` occurrence), recovers in a second process, and returns what the session and the provider saw. */
async function crashAndRecover(at: string, nth: number, extra: Record<string, string> = {}) {
  const { url, sim, env } = await world(extra);
  const crashed = await runWorker({ ...env, MODE: "start", CRASH_AT: at, CRASH_NTH: String(nth) });
  expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
  const sentBeforeRecovery = sim.exchanges.length;
  const recovered = await runWorker({ ...env, MODE: "recover" });
  expect(recovered.result, recovered.stderr).toMatchObject({ outcomes: [{ reason: "completed", turn: 0 }] });
  return { events: await sessionEvents(url), exchanges: sim.exchanges, sentBeforeRecovery };
}

describe("a turn killed at a boundary and recovered by another process", () => {
  it.each([
    // [boundary, which occurrence, provider calls the crash forced beyond the uncrashed run's]
    ["frozen", 1, 0],
    ["frozen", 2, 0],
    ["answered", 1, 1],
    ["answered", 3, 1],
    ["appended", 1, 1],
    ["appended", 2, 0],
    ["committed", 1, 0],
    ["committed", 4, 0],
  ] as const)("at %s (#%i) logs what an uncrashed run logs, with %i request sent again, byte for byte", async (at, nth, extra) => {
    const { events, exchanges } = await crashAndRecover(at, nth);
    expect(withoutReports(events)).toEqual(withoutReports(reference.events));
    const bodies = exchanges.map((exchange) => exchange.body);
    expect(distinct(bodies)).toEqual(reference.bodies);
    expect(bodies).toHaveLength(reference.bodies.length + extra);
    // A request sent again is the same bytes, so it reads the provider's prefix cache.
    for (const [i, exchange] of exchanges.entries()) if (i > 0 && exchange.body === bodies[i - 1]) expect(exchange.cacheHitTokens).toBeGreaterThan(0);
  });
});

describe("a turn recovered by a worker whose agent changed", () => {
  it("sends the request in flight again as logged, and logs the change before sending anything else: the log rebuilds every body received", async () => {
    const { url, sim, env } = await world();
    const crashed = await runWorker({ ...env, MODE: "start", CRASH_AT: "answered", CRASH_NTH: "1" });
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    const recovered = await runWorker({ ...env, MODE: "recover", REVISED: "1" });
    expect(recovered.result, recovered.stderr).toMatchObject({ outcomes: [{ reason: "completed", turn: 0 }] });
    const events = await sessionEvents(url);
    const rebuilt = new Set(await Promise.all((await reconstructRequests(events)).map((request) => serializeRequest(request.request, { dialect: "deepseek" }))));
    const bodies = sim.exchanges.map((exchange) => exchange.body);
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies.length).toBeGreaterThan(2);
    for (const body of bodies) expect(rebuilt.has(body)).toBe(true);
    expect(bodies.at(-1)).toContain("Revised.");
    expect(bodies.at(-1)).toContain("count_words");
  });
});

describe("a tool call killed while it ran", () => {
  it("runs a tool that is safe to rerun again: the log is the uncrashed run's, the side effect happened twice", async () => {
    const runs = join(mkdtempSync(join(tmpdir(), "dsh-dbos-")), "runs");
    const { events, exchanges } = await crashAndRecover("tool", 1, { RUNS_FILE: runs });
    expect(withoutReports(events)).toEqual(withoutReports(reference.events));
    expect(exchanges.map((exchange) => exchange.body)).toEqual(reference.bodies);
    expect(readFileSync(runs, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("never runs a tool that is not safe to rerun again: its logged intent makes the result uncertain, told to the model", async () => {
    const runs = join(mkdtempSync(join(tmpdir(), "dsh-dbos-")), "runs");
    const { events } = await crashAndRecover("tool", 1, { RUNS_FILE: runs, READ_UNSAFE: "1" });
    expect(readFileSync(runs, "utf8").trim().split("\n")).toHaveLength(1);
    const intent = events.findIndex((event) => event.type === "tool/intent");
    expect(events[intent]?.data).toMatchObject({ toolName: "read_file" });
    expect(events[intent + 1]).toMatchObject({ type: "tool/result", data: { toolName: "read_file", isError: true, content: [{ text: expect.stringMatching(/^Error \[TOOL_UNCERTAIN\]/) }] } });
    expect(events.at(-1)).toMatchObject({ type: "turn/end", data: { reason: "completed" } });
  });
});

describe("a worker that is still running when its turn is taken over", () => {
  it("has its late append refused by the store: the log holds the new owner's run, once", async () => {
    const gateDir = mkdtempSync(join(tmpdir(), "dsh-dbos-"));
    const gate = join(gateDir, "open");
    const { url, env } = await world();
    // The zombie stops inside read_file's call, after the tool ran, before its result is logged.
    const zombie = runWorker({ ...env, MODE: "start", TOOL_GATE: gate });
    while (!existsSync(`${gate}.waiting`)) await new Promise((resolve) => setTimeout(resolve, 25));
    const owner = await runWorker({ ...env, MODE: "recover" });
    expect(owner.result, owner.stderr).toMatchObject({ outcomes: [{ reason: "completed", turn: 0 }] });
    writeFileSync(gate, "");
    const late = await zombie;
    // The zombie's tool ran; its result's append was refused (its writer epoch is stale), so the log has the owner's alone.
    expect(late.stderr).toMatch(/unit at \d+ failed: LOG_CONFLICT /);
    expect(withoutReports(await sessionEvents(url))).toEqual(withoutReports(reference.events));
  });
});

describe("workers that cannot go on, and workers that start together", () => {
  it("exits with one line naming the database, password masked, when nothing listens there", async () => {
    const run = await runWorker({ DATABASE_URL: "postgres://dsh:pa55word@127.0.0.1:1/sessions", SIM_URL: "http://127.0.0.1:1/v1", SESSION: "s", INPUT, MODE: "recover" });
    expect(run.result).toEqual({ code: "LOG_STORE_UNAVAILABLE", error: "cannot reach the sessions' database postgres://dsh:***@127.0.0.1:1/sessions: connect ECONNREFUSED 127.0.0.1:1" });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/pa55word|\n\s+at /);
  });

  it("waits out a restart of its database mid-turn: the unit runs again on a new connection, the turn completes, with one line per warning", async () => {
    const gateDir = mkdtempSync(join(tmpdir(), "dsh-dbos-"));
    const gate = join(gateDir, "open");
    const { url, sim, env } = await world();
    // Held inside read_file's call, after the tool ran, before its result is logged: then the database restarts.
    const worker = runWorker({ ...env, MODE: "start", TOOL_GATE: gate });
    while (!existsSync(`${gate}.waiting`)) await new Promise((resolve) => setTimeout(resolve, 25));
    await server.restart();
    writeFileSync(gate, "");
    const ended = await worker;
    expect(ended.result, ended.stderr).toMatchObject({ outcomes: [{ reason: "completed", turn: 0 }] });
    expect(ended.stderr).toMatch(/^dsh-dbos: lost the sessions' database while running a unit of workflow dsh:s:turn:0 \(.+\): running it again in \d+ ms$/m);
    expect(ended.stderr).not.toMatch(/\n\s+at /);
    expect(withoutReports(await sessionEvents(url))).toEqual(withoutReports(reference.events));
    expect(distinct(sim.exchanges.map((exchange) => exchange.body))).toEqual(reference.bodies);
  });

  it("launches two first workers at once on a fresh database, one after the other, and both finish", async () => {
    const { env } = await world();
    const runs = await Promise.all([runWorker({ ...env, MODE: "recover", EXECUTOR: "one" }), runWorker({ ...env, MODE: "recover", EXECUTOR: "two" })]);
    for (const run of runs) expect(run.result, run.stderr).toEqual({ outcomes: [] });
  });
});

describe("starting a turn whose workflow a crash left pending", () => {
  it("is refused until the pending turn is recovered", async () => {
    const { env } = await world();
    const crashed = await runWorker({ ...env, MODE: "start", CRASH_AT: "frozen", CRASH_NTH: "1" });
    expect(crashed.signal).toBe("SIGKILL");
    const again = await runWorker({ ...env, MODE: "start", EXECUTOR: "elsewhere" });
    expect(again.result).toMatchObject({ code: "DURABLE_TURN_PENDING", error: expect.stringContaining("dsh:s:turn:0") });
  });
});
