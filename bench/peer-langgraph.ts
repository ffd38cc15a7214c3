// Checkpoint cost against LangGraph on the same PostgreSQL: a one-node graph over LangGraph's
// messages state, compiled with `PostgresSaver`, against a dsh session in `PostgresStore`, step by
// step in turns (each step: a user message in, an assistant message out). LangGraph checkpoints its
// state at each step; dsh appends the step's two messages as two commits, each acknowledged once
// durable. Per-step times are compared around step 100 and step 1,000, and the bytes each stores
// (its tables' total size). Run by `pnpm bench` in a child process: `… bench/peer-langgraph.ts STEPS`.
import { performance } from "node:perf_hooks";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createAgentRegistry } from "dsh-agent";
import { startTestPostgres } from "dsh-store-conformance/postgres-server";
import { PostgresStore } from "dsh-store-postgres";
import { assistantMessageEvent, userMessageEvent } from "dsh-surface";
import pg from "pg";
import { answer, median, question } from "./util.js";

export interface LangGraphRow {
  /** The step the window of steps ends at. */
  readonly step: number;
  readonly langGraphMs: number;
  readonly dshMs: number;
  /** Median of the per-step ratios LangGraph / dsh in the window (above 1: dsh is faster). */
  readonly ratio: number;
  /** Bytes each has stored once the window's last step is done: its tables' total size. */
  readonly langGraphBytes: number;
  readonly dshBytes: number;
}


/** The total size of `tables` (with their indexes and TOAST) in the database at `url`. */
async function tableBytes(url: string, tables: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c WHERE c.relname = ANY($1) AND c.relkind = 'r'", [tables]);
    return Number(rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

export async function langGraphBench(steps: number, windows: readonly number[]): Promise<LangGraphRow[]> {
  const postgres = await startTestPostgres();
  try {
    const graphUrl = await postgres.createDatabase();
    const dshUrl = await postgres.createDatabase();
    // LangGraph's pool is ours, so it is ended (and heard) before the server stops.
    const pool = new pg.Pool({ connectionString: graphUrl });
    pool.on("error", () => undefined);
    const checkpointer = new PostgresSaver(pool);
    await checkpointer.setup();
    let turn = 0;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", () => ({ messages: [new AIMessage(answer(turn))] }))
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer });
    const thread = { configurable: { thread_id: "bench" } };
    const store = await PostgresStore.connect(dshUrl);
    const { log } = await store.create({ registry: createAgentRegistry(), sessionId: "bench" });
    const langGraphMs: number[] = [];
    const dshMs: number[] = [];
    const rows: LangGraphRow[] = [];
    for (turn = 0; turn < steps; turn++) {
      let begun = performance.now();
      await graph.invoke({ messages: [new HumanMessage(question(turn))] }, thread);
      langGraphMs.push(performance.now() - begun);
      begun = performance.now();
      await log.append(userMessageEvent.input({ content: [{ type: "text", text: question(turn) }], source: "user" }));
      await log.append(assistantMessageEvent.input({ content: [{ type: "text", text: answer(turn) }], source: "model" }));
      dshMs.push(performance.now() - begun);
      if (!windows.includes(turn + 1)) continue;
      // The last ten steps up to this one.
      const from = Math.max(0, turn - 9);
      const graphWindow = langGraphMs.slice(from);
      const dshWindow = dshMs.slice(from);
      rows.push({
        step: turn + 1,
        langGraphMs: median(graphWindow),
        dshMs: median(dshWindow),
        ratio: median(graphWindow.map((ms, i) => ms / dshWindow[i]!)),
        langGraphBytes: await tableBytes(graphUrl, ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]),
        dshBytes: await tableBytes(dshUrl, ["dsh_sessions", "dsh_events"]),
      });
    }
    await log.close();
    await store.close();
    await pool.end();
    return rows;
  } finally {
    await postgres.stop();
  }
}

if (process.argv[2] !== undefined) {
  const steps = Number(process.argv[2]);
  process.stdout.write(JSON.stringify(await langGraphBench(steps, [100, 1000].filter((step) => step <= steps))));
}
