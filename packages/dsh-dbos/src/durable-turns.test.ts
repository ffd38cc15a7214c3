import { Agent, createAgentRegistry } from "dsh-agent";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { PostgresStore } from "dsh-store-postgres";
import { startTestPostgres, type TestPostgres } from "dsh-store-conformance/postgres-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurns, turnWorkflowId } from "./durable-turns.js";
import { SIM_CONFIG, exploreAgent } from "./test-support/explore.js";
import { timeless } from "./test-support/compare.js";

let server: TestPostgres;
let url: string;
let turns: DurableTurns;
let simUrl = "";
const sims: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createDatabase();
  // One registration per process: every test's turns share it, each on its own simulator and session.
  turns = DurableTurns.register({ url, agent: () => exploreAgent(simUrl) });
  await turns.launch();
}, 120_000);
afterAll(async () => {
  await turns?.shutdown();
  for (const sim of sims) await sim.close();
  await server?.stop();
});

async function freshSimulator() {
  const sim = await startSimulator({ scenario: { policy: "explore" } });
  sims.push(sim);
  simUrl = sim.url;
  return sim;
}

describe("DurableTurns", () => {
  it("runs a turn as a workflow and logs what Agent.run logs for it", async () => {
    const sim = await freshSimulator();
    const outcome = await turns.run("s1", "What is in the directory?", { config: SIM_CONFIG });
    expect(outcome).toMatchObject({ sessionId: "s1", turn: 0, workflowId: "dsh:s1:turn:0", reason: "completed", text: expect.stringMatching(/^I listed the directory and read one file/) });
    expect(outcome).not.toHaveProperty("error");
    const store = await PostgresStore.connect(url);
    const { log } = await store.read("s1", createAgentRegistry());
    await store.close();
    await freshSimulator();
    const plain = new EventLog({ registry: createAgentRegistry() });
    await new Agent({ log: plain, config: SIM_CONFIG, ...exploreAgent(simUrl) }).run("What is in the directory?");
    expect(timeless(log)).toEqual(timeless(plain));
    expect(sim.exchanges).toHaveLength(3);
  });

  it("keeps only small receipts in the engine: the log holds the bytes", async () => {
    await freshSimulator();
    await turns.run("s2", "Look around.", { config: SIM_CONFIG });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ output: string }>("SELECT output FROM dbos.transaction_completion WHERE workflow_id = $1 ORDER BY function_num", [turnWorkflowId("s2", 0)]);
      // Three answers, two tool calls: five units, each recorded with its receipt in the same transaction as its events.
      expect(rows).toHaveLength(5);
      for (const { output } of rows) expect(output.length).toBeLessThan(600);
      const receipts = rows.map(({ output }) => (JSON.parse(output) as { json: { from: number; to: number } }).json);
      expect(receipts.map(({ from }) => from)).toEqual([0, ...receipts.slice(0, -1).map(({ to }) => to)]);
      const { rows: events } = await client.query<{ n: string }>("SELECT count(*) AS n FROM dsh_events WHERE session_id = 's2'");
      expect(Number(events[0]!.n)).toBe(receipts.at(-1)!.to);
    } finally {
      await client.end();
    }
  });

  it("says why a turn failed: the outcome carries the cause its turn/end logged", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ fault: "malformed" }, { fault: "malformed" }, { fault: "malformed" }, { fault: "malformed" }] } });
    sims.push(sim);
    simUrl = sim.url;
    const outcome = await turns.run("s-error", "Look around.", { config: SIM_CONFIG });
    expect(outcome).toMatchObject({ reason: "error", error: { code: expect.stringMatching(/^LLM_/), message: expect.any(String) } });
    const store = await PostgresStore.connect(url);
    const { log } = await store.read("s-error", createAgentRegistry());
    await store.close();
    expect(log.slice().at(-1)).toMatchObject({ type: "turn/end", data: { reason: "error", error: outcome.error } });
  });

  it("continues a session turn after turn, the second turn from the logged model", async () => {
    await freshSimulator();
    await turns.run("s3", "First.", { config: SIM_CONFIG });
    const second = await turns.run("s3", "Second.");
    expect(second).toMatchObject({ turn: 1, workflowId: "dsh:s3:turn:1", reason: "completed" });
    expect(await turns.pending()).toEqual([]);
  });

  it("keeps the turn's system prompt with its workflow, ahead of the agent's", async () => {
    await freshSimulator();
    await turns.run("s5", "Look around.", { config: SIM_CONFIG, systemPrompt: "Answer in French." });
    const store = await PostgresStore.connect(url);
    const { log } = await store.read("s5", createAgentRegistry());
    await store.close();
    expect(log.slice().find((event) => event.type === "system/message")?.data).toMatchObject({ content: "Answer in French." });
  });

  it("refuses a new session without a model", async () => {
    await expect(turns.start("s4", "Hi.")).rejects.toMatchObject({ code: "AGENT_INVALID_OPTIONS" });
  });
});
