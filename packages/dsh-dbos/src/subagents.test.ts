import { createAgentRegistry, reconstructTree, verifySessionTree, walkSessionTree } from "dsh-agent";
import type { LogEvent } from "dsh-log";
import { serializeRequest } from "dsh-openai-compatible";
import { startSimulator, type Simulator } from "dsh-simulator";
import { PostgresStore } from "dsh-store-postgres";
import { startTestPostgres, type TestPostgres } from "dsh-store-conformance/postgres-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutReports } from "./test-support/compare.js";
import { runWorker } from "./test-support/run-worker.js";

let server: TestPostgres;
const simulators: Simulator[] = [];

/** A tree as its logs, by session, parent first: what two runs of one turn must agree on (a child's chain head covers its events' times, so it is left out). */
interface Tree {
  readonly ids: string[];
  readonly logs: Map<string, { type: string; data: unknown }[]>;
}

async function readTree(url: string): Promise<Tree & { readonly bodies: Set<string>; readonly intact: boolean; readonly problems: string[] }> {
  const store = await PostgresStore.connect(url);
  try {
    const logs = new Map<string, { type: string; data: unknown }[]>();
    for await (const { sessionId, log } of walkSessionTree(store, "s")) logs.set(sessionId, withoutHeads(log.slice()));
    const rebuilt = await reconstructTree(store, "s");
    const bodies = new Set(await Promise.all(rebuilt.flatMap((session) => session.requests.map((request) => serializeRequest(request.request, { dialect: "deepseek" })))));
    const report = await verifySessionTree(store, "s");
    return { ids: [...logs.keys()], logs, bodies, intact: report.intact, problems: report.sessions.flatMap((session) => session.problem ?? []) };
  } finally {
    await store.close();
  }
}

function withoutHeads(events: readonly LogEvent[]): { type: string; data: unknown }[] {
  return withoutReports(events).map(({ type, data }) => {
    const child = (data as { child?: { head?: string } }).child;
    if (type !== "tool/result" || child === undefined) return { type, data };
    const { head, ...link } = child;
    expect(head).toMatch(/^[0-9a-f]{64}$/);
    return { type, data: { ...(data as object), child: link } };
  });
}

/** The turn workflows of a database, by id: their status and when each was created and last updated. */
async function workflows(url: string): Promise<Map<string, { status: string; created: number; updated: number }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ workflow_uuid: string; status: string; created_at: string; updated_at: string }>("SELECT workflow_uuid, status, created_at, updated_at FROM dbos.workflow_status WHERE name = 'dshTurn'");
    return new Map(rows.map((row) => [row.workflow_uuid, { status: row.status, created: Number(row.created_at), updated: Number(row.updated_at) }]));
  } finally {
    await client.end();
  }
}

/** A database, a simulator that calls two subagents at once, and the worker environment with the `delegate` tool. */
async function world() {
  const url = await server.createDatabase();
  const sim = await startSimulator({ scenario: { policy: "explore", delegates: 2 } });
  simulators.push(sim);
  return { url, sim, env: { DATABASE_URL: url, SIM_URL: sim.url, SESSION: "s", INPUT: "What is in the directory?", SUBAGENTS: "1" } };
}

let reference: Awaited<ReturnType<typeof readTree>> & { readonly url: string; readonly received: string[] };

beforeAll(async () => {
  server = await startTestPostgres();
  const { url, sim, env } = await world();
  const run = await runWorker({ ...env, MODE: "start" });
  expect(run.result, run.stderr).toMatchObject({ outcomes: [{ sessionId: "s", reason: "completed", turn: 0 }] });
  reference = { ...(await readTree(url)), url, received: sim.exchanges.map((exchange) => exchange.body) };
}, 120_000);
afterAll(async () => {
  for (const sim of simulators) await sim.close();
  await server?.stop();
});

describe("a durable turn whose answer calls two subagents", () => {
  it("runs each child's turn as a workflow of its own, both at once, and links each child in its call's result", async () => {
    const [parent, ...children] = reference.ids;
    expect(parent).toBe("s");
    expect(children).toHaveLength(2);
    const results = reference.logs.get("s")!.filter((event) => event.type === "tool/result");
    expect(results.map((result) => (result.data as { child?: { sessionId: string } }).child?.sessionId)).toEqual(children);
    for (const child of children) {
      const events = reference.logs.get(child)!;
      expect(events[0]).toMatchObject({ type: "session/parent", data: { sessionId: "s", toolName: "delegate" } });
      expect(events.filter((event) => event.type === "turn/start")).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "turn/end", data: { reason: "completed" } });
    }
    // The parent's second answer reports what both children said.
    expect(JSON.stringify(reference.logs.get("s")!.at(-3))).toMatch(/2 subagents looked around for me/);
    expect(reference.intact, reference.problems.join("\n")).toBe(true);
    // Both children's workflows were started before either ended: they ran at once.
    const runs = await workflows(reference.url);
    const [first, second] = children.map((child) => runs.get(`dsh:${child}:turn:0`)!);
    expect([first!.status, second!.status, runs.get("dsh:s:turn:0")!.status]).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"]);
    expect(Math.max(first!.created, second!.created)).toBeLessThanOrEqual(Math.min(first!.updated, second!.updated));
    // Every body the provider received rebuilds from the tree's logs, and each was sent once.
    expect(new Set(reference.received)).toEqual(reference.bodies);
    expect(reference.received).toHaveLength(reference.bodies.size);
  });

  it.each([
    // [boundary, which occurrence]: the parent's first answer is #1, so #2 and #3 fall in the children's turns.
    ["answered", 2],
    ["frozen", 3],
  ] as const)("killed in a child's turn (at %s #%i) and recovered by another process: each call completes once, the tree logs what the uncrashed run logged", async (at, nth) => {
    const { url, sim, env } = await world();
    const crashed = await runWorker({ ...env, MODE: "start", CRASH_AT: at, CRASH_NTH: String(nth) });
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    const recovered = await runWorker({ ...env, MODE: "recover" });
    expect(recovered.result?.outcomes, recovered.stderr).toContainEqual(expect.objectContaining({ sessionId: "s", reason: "completed", turn: 0 }));
    const tree = await readTree(url);
    expect(tree.ids).toEqual(reference.ids);
    for (const id of reference.ids) expect(tree.logs.get(id)).toEqual(reference.logs.get(id));
    expect(tree.intact, tree.problems.join("\n")).toBe(true);
    // What the provider received, crash and all, rebuilds from the logs: a request sent again is the same bytes.
    const received = sim.exchanges.map((exchange) => exchange.body);
    expect(new Set(received)).toEqual(tree.bodies);
    expect(tree.bodies).toEqual(reference.bodies);
  });
});

describe("a subagent's session", () => {
  it("is read back with its link as its first event, and the parent's store is where it lives", async () => {
    const store = await PostgresStore.connect(reference.url);
    try {
      const sessions = (await store.list()).map((info) => info.sessionId).sort();
      expect(sessions).toEqual([...reference.ids].sort());
      const { log } = await store.read(reference.ids[1]!, createAgentRegistry());
      expect(log.get(0)?.type).toBe("session/parent");
    } finally {
      await store.close();
    }
  });
});
