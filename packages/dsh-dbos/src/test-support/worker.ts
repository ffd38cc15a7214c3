/**
 * A worker process for the crash tests. `start` runs one turn; `recover` launches DBOS (which takes
 * up the turns this executor left pending) and waits for them. `CRASH_AT` kills the process with
 * SIGKILL at one boundary of the `CRASH_NTH` unit (or model call):
 *   frozen    the request is logged and built, before it is sent;
 *   answered  the provider answered, before anything of the answer is logged;
 *   appended  the unit's events are written in its transaction, before DBOS's completion record;
 *   committed the transaction committed, before DBOS wrote its own record of the step;
 *   tool      a call of `read_file` ran its side effect, before its result was logged.
 * `REVISED=1` gives the agent one more tool and a revised prompt: a recovery by changed code.
 * `SUBAGENTS=1` gives it a `delegate` subagent tool (the explore tools, the same model and prompt).
 * Prints one JSON line with the outcomes, or `{ error, code }`.
 */
import { appendFileSync, existsSync } from "node:fs";
import { defineTool, subagentTool, type AgentTool } from "dsh-agent";
import type { LlmAdapter } from "dsh-llm";
import pg from "pg";
import { z } from "zod";
import { DurableTurns } from "../durable-turns.js";
import { SIM_CONFIG, SYSTEM_PROMPT, exploreAgent, exploreTools } from "./explore.js";

const env = (name: string) => process.env[name] ?? "";
const crashAt = env("CRASH_AT");
const nth = Number(env("CRASH_NTH") || "1");
const die = (): never => {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
};

/** Counts the occurrences of a boundary and dies at the `nth` one of the chosen kind. */
const seen = new Map<string, number>();
function boundary(kind: string): void {
  const count = (seen.get(kind) ?? 0) + 1;
  seen.set(kind, count);
  if (kind === crashAt && count === nth) die();
}

/** The adapter with the `frozen` and `answered` boundaries around each call. */
function watched(inner: LlmAdapter): LlmAdapter {
  async function* stream(...args: Parameters<LlmAdapter["stream"]>) {
    boundary("frozen");
    const chunks = [];
    for await (const chunk of inner.stream(...args)) chunks.push(chunk);
    boundary("answered");
    yield* chunks;
  }
  return new Proxy(inner, {
    get(target, key) {
      if (key === "stream") return stream;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// The `appended` and `committed` boundaries: the statements a unit's transaction sends last.
const query = pg.Client.prototype.query as (...args: unknown[]) => Promise<unknown>;
const recording = new WeakSet<object>();
pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
  const text = typeof args[0] === "string" ? args[0] : "";
  if (text.includes("INSERT INTO dbos.transaction_completion")) {
    boundary("appended");
    recording.add(this);
  }
  const result = query.apply(this, args);
  if (text === "COMMIT" && recording.has(this)) {
    recording.delete(this);
    return (result as Promise<unknown>).then((value) => {
      boundary("committed");
      return value;
    });
  }
  return result;
} as typeof pg.Client.prototype.query;

const runs = env("RUNS_FILE") || undefined;
const tools = exploreTools(runs, env("READ_UNSAFE") !== "1").map((tool): AgentTool =>
  tool.schema.name !== "read_file"
    ? tool
    : {
        ...tool,
        async invoke(raw, context) {
          const outcome = await tool.invoke(raw, context);
          if (env("TOOL_GATE") !== "") await gate(env("TOOL_GATE"));
          boundary("tool");
          return outcome;
        },
      },
);
// A worker whose agent changed since the turn started (REVISED=1): one more tool, a revised prompt.
const revised = env("REVISED") === "1";
const extra = defineTool({ name: "count_words", description: "Count the words of a text", parameters: z.object({ text: z.string() }), execute: ({ text }) => String(text.split(/\s+/).length) });
const turns = DurableTurns.register({
  url: env("DATABASE_URL"),
  agent: (sessionId, { store }) => {
    const agent = exploreAgent(env("SIM_URL"), { adapter: watched });
    if (revised) return { ...agent, systemPrompt: `${agent.systemPrompt ?? ""} Revised.`, tools: [...tools, extra] };
    if (env("SUBAGENTS") !== "1") return { ...agent, tools };
    const delegate = subagentTool({ name: "delegate", description: "Hands a task to a subagent", store, parentSessionId: sessionId, runtime: agent.runtime, config: SIM_CONFIG, systemPrompt: SYSTEM_PROMPT, tools });
    return { ...agent, tools: [...tools, delegate] };
  },
  onUnitError: (error, unit) => process.stderr.write(`unit at ${unit.head} failed: ${(error as { code?: string }).code ?? ""} ${(error as Error).message}\n`),
});

let gated = false;

/** The first time only, waits until the file `path` exists: a test holds a zombie here while another process takes its turn over. */
async function gate(path: string): Promise<void> {
  if (gated) return;
  gated = true;
  appendFileSync(`${path}.waiting`, "");
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 20));
}

try {
  await turns.launch({ executorId: env("EXECUTOR") || "local" });
  const outcomes = env("MODE") === "recover" ? await turns.recover() : [await turns.run(env("SESSION"), env("INPUT"), { config: SIM_CONFIG })];
  process.stdout.write(`${JSON.stringify({ outcomes })}\n`);
  await turns.shutdown();
} catch (error) {
  const code = (error as { code?: unknown }).code;
  process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error), code })}\n`);
  await turns.shutdown().catch(() => undefined);
  process.exitCode = 1;
}
