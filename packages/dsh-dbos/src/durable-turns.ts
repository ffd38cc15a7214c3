import { DBOS, type DLogger } from "@dbos-inc/dbos-sdk";
import { registerDataSource, runTransaction } from "@dbos-inc/dbos-sdk/datasource";
import { advanceTurn, continuedSelection, createAgentRegistry, driveTurn, turnEndEvent, turnStartEvent, turnToStart, type ContentInput, type DurableTurnOptions, type StepReceipt, type TurnEndReason, type TurnPosition } from "dsh-agent";
import { agentOf, childTurnArgs, parentIn, type AgentContext } from "./subagents.js";
import type { LlmCallConfig } from "dsh-llm";
import { maskUrlPassword } from "dsh-base";
import { LogError, type EventLog } from "dsh-log";
import pg from "pg";
import { PostgresStore } from "dsh-store-postgres";
import { SurfaceManager } from "dsh-surface";
import { DurableError } from "./errors.js";
import { turnError, turnText } from "./outcome.js";
import { TurnTransactions } from "./transactions.js";

/** What runs a session's turns: the agent options that are code, the same in every worker and in recovery. */
export type TurnAgent = Omit<DurableTurnOptions, "config" | "commitApart" | "signal">;

/** Options of {@link DurableTurns.register}. */
export interface DurableTurnsOptions {
  /** The PostgreSQL database of the sessions; DBOS keeps its system tables and completion records there too. */
  readonly url: string;
  /**
   * Builds the agent for a session's unit: runtime, system prompt (default: the session's), tools.
   * Frozen code: every worker and recovery builds the same. A subagent session's agent is the one
   * its parent's `subagentTool` names; `context.store` is where such a tool creates its sessions.
   */
  readonly agent: (sessionId: string, context: AgentContext) => TurnAgent | Promise<TurnAgent>;
  /** Most connections of each pool (the store's and the transactions'; default 10): at least the turns one worker runs at once. */
  readonly maxConnections?: number;
  /**
   * Hears each unit that failed and rolled back, before DBOS does: a `LOG_CONFLICT` is an older
   * attempt refused because another process took the turn over (DBOS may not report it otherwise).
   */
  readonly onUnitError?: (error: unknown, unit: { readonly sessionId: string; readonly turn: number; readonly head: number }) => void;
}

/** Options of one turn: the model of a new session, changes to a continued one's, the input's source, and a system prompt. */
export interface TurnOptions {
  readonly config?: Partial<LlmCallConfig>;
  readonly source?: string;
  /** The turn's system prompt, kept with the workflow (ahead of the agent's and the session's own). */
  readonly systemPrompt?: string;
}

/** A started turn: its number and its workflow. */
export interface StartedTurn {
  readonly sessionId: string;
  readonly turn: number;
  readonly workflowId: string;
}

/** How a durable turn ended, read from the log once its workflow finished. */
export interface TurnOutcome extends StartedTurn {
  readonly reason: TurnEndReason;
  /** The text of the turn's last answer. */
  readonly text: string;
  /** Why the turn failed (`reason` `error`), as its `turn/end` logged it. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** The workflow's input: all it needs to run the turn again, byte for byte, in another process. */
export interface TurnArgs {
  readonly sessionId: string;
  readonly turn: number;
  readonly head: number;
  readonly input: ContentInput;
  readonly source?: string;
  /** The selection of the turn's first request, fixed when the turn was asked for. */
  readonly config: LlmCallConfig;
  readonly systemPrompt?: string;
}

/** The name DBOS knows the turn workflow by. */
export const TURN_WORKFLOW = "dshTurn";

let registered = false;

/** The workflow id of turn `turn` of a session: one workflow per turn, so starting it twice finds the first. */
export function turnWorkflowId(sessionId: string, turn: number): string {
  return `dsh:${sessionId}:turn:${turn}`;
}

/**
 * dsh turns as DBOS workflows. Each unit of a turn (an answer, a tool call, a step's end) is a DBOS
 * transaction on the sessions' database that appends the unit's events and DBOS's completion record
 * in one COMMIT; the engine keeps only the unit's small receipt, the log keeps the bytes. Register
 * before `DBOS.launch()`; one registration per process.
 */
export class DurableTurns {
  readonly #transactions: TurnTransactions;
  readonly #agent: DurableTurnsOptions["agent"];
  readonly #onUnitError: DurableTurnsOptions["onUnitError"];
  readonly #url: string;
  readonly #maxConnections: number;
  readonly #workflow: (args: TurnArgs) => Promise<StepReceipt>;
  #store: PostgresStore | undefined;

  private constructor(options: DurableTurnsOptions) {
    this.#url = options.url;
    this.#agent = options.agent;
    this.#onUnitError = options.onUnitError;
    this.#maxConnections = options.maxConnections ?? 10;
    this.#transactions = new TurnTransactions("dsh-sessions", options.url, this.#maxConnections);
    registerDataSource(this.#transactions);
    this.#workflow = DBOS.registerWorkflow((args: TurnArgs) => this.#runTurn(args), { name: TURN_WORKFLOW });
  }

  /** Registers the turn workflow and its data source with DBOS; call it once per process, before `DBOS.launch()` (or {@link launch}). */
  static register(options: DurableTurnsOptions): DurableTurns {
    if (registered) throw new DurableError("DURABLE_INVALID_OPTIONS", "DurableTurns.register runs once per process");
    registered = true;
    return new DurableTurns(options);
  }

  /**
   * Configures DBOS on the sessions' database and launches it: workflows this executor left pending
   * start again now. `executorId` names this worker (default `DBOS__VMID`, else `local`). Workers that
   * launch at once take turns (a PostgreSQL advisory lock), so two first launches never run DBOS's
   * migrations together. A database that cannot be reached is `LOG_STORE_UNAVAILABLE`, naming it
   * with its password masked, with DBOS shut down again so the process can exit.
   */
  async launch(options: { readonly name?: string; readonly executorId?: string; readonly logger?: DLogger } = {}): Promise<void> {
    DBOS.setConfig({
      name: options.name ?? "dsh",
      systemDatabaseUrl: this.#url,
      applicationVersion: "dsh-turn-1",
      logger: options.logger ?? lineLogger((line) => process.stderr.write(`${line}\n`)),
      ...(options.executorId === undefined ? {} : { executorID: options.executorId }),
    });
    try {
      await oneLaunchAtATime(this.#url, () => DBOS.launch());
    } catch (error) {
      await DBOS.shutdown().catch(() => undefined);
      throw storeUnavailable(this.#url, error);
    }
  }

  /** Shuts DBOS down and closes the store. */
  async shutdown(): Promise<void> {
    await DBOS.shutdown();
    await this.#store?.close();
    this.#store = undefined;
  }

  /**
   * Starts the session's next turn on `input` as a workflow (creating the session when it does not
   * exist) and returns at once. A turn still open in the log is refused: recover it first.
   */
  async start(sessionId: string, input: ContentInput, options: TurnOptions = {}): Promise<StartedTurn> {
    const store = await this.#sessions();
    const log = await readOrCreate(store, sessionId);
    // A crashed turn may be open in the log (its dispatch is committed before its request is sent).
    const open = openTurn(log);
    if (open !== undefined) await this.#refusePending(sessionId, open);
    const { turn, head } = turnToStart(log);
    await this.#refusePending(sessionId, turn);
    const config = continuedSelection(log, options.config);
    const args: TurnArgs = {
      sessionId,
      turn,
      head,
      input,
      config,
      ...(options.source === undefined ? {} : { source: options.source }),
      ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    };
    const workflowId = turnWorkflowId(sessionId, turn);
    await DBOS.startWorkflow(this.#workflow, { workflowID: workflowId })(args);
    return { sessionId, turn, workflowId };
  }

  /** Refuses to start a turn while turn `turn` of the session has a workflow: it must be recovered first. */
  async #refusePending(sessionId: string, turn: number): Promise<void> {
    const workflowId = turnWorkflowId(sessionId, turn);
    const status = await DBOS.getWorkflowStatus(workflowId);
    if (status !== null) throw new DurableError("DURABLE_TURN_PENDING", `turn ${turn} of session ${sessionId} already has workflow ${workflowId} (${status.status}): recover it first`);
  }

  /** Runs the session's next turn to its end: {@link start}, then {@link outcome}. */
  async run(sessionId: string, input: ContentInput, options: TurnOptions = {}): Promise<TurnOutcome> {
    return this.outcome(await this.start(sessionId, input, options));
  }

  /** Waits for a started turn's workflow and reads how the turn ended from the log. */
  async outcome(started: StartedTurn): Promise<TurnOutcome> {
    const handle = DBOS.retrieveWorkflow<StepReceipt>(started.workflowId);
    let last: StepReceipt | null;
    try {
      last = await handle.getResult();
    } catch (cause) {
      throw new DurableError("DURABLE_TURN_FAILED", `workflow ${started.workflowId} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    }
    if (last === null || last.next.kind !== "done") throw new DurableError("DURABLE_TURN_FAILED", `workflow ${started.workflowId} ended without finishing turn ${started.turn}`);
    const { log } = await (await this.#sessions()).read(started.sessionId, createAgentRegistry());
    const error = turnError(log, started.turn);
    return { ...started, reason: last.next.reason, text: turnText(log, started.turn), ...(error === undefined ? {} : { error }) };
  }

  /** The turns whose workflows are pending (left by a crashed worker, or running), oldest first. */
  async pending(): Promise<StartedTurn[]> {
    const workflows = await DBOS.listWorkflows({ workflowName: TURN_WORKFLOW, status: ["PENDING", "ENQUEUED"], loadInput: true });
    return workflows.map((workflow) => {
      const [args] = workflow.input as [TurnArgs];
      return { sessionId: args.sessionId, turn: args.turn, workflowId: workflow.workflowID };
    });
  }

  /** Waits for every pending turn (those `launch` took up again after a crash) and returns how each ended. */
  async recover(): Promise<TurnOutcome[]> {
    const outcomes: TurnOutcome[] = [];
    for (const started of await this.pending()) outcomes.push(await this.outcome(started));
    return outcomes;
  }

  async #sessions(): Promise<PostgresStore> {
    this.#store ??= await PostgresStore.connect(this.#url, { maxConnections: this.#maxConnections });
    return this.#store;
  }

  /**
   * The turn's units, one DBOS transaction each. Before the first call of an answer, the turns its
   * subagent calls need start as workflows of their own (at once, so they run in parallel); each
   * call's unit runs once its child's workflow ended, and returns that child's answer.
   */
  #runTurn(args: TurnArgs): Promise<StepReceipt> {
    const start = { turn: args.turn, head: args.head, input: args.input, ...(args.source === undefined ? {} : { source: args.source }) };
    /** The open answer's subagent calls: their children's workflows. */
    const children = new Map<string, string>();
    return driveTurn(start, async (position) => {
      const next = position.previous?.next;
      if (next?.kind === "tool") {
        // The receipt of the unit that logged the answer: its calls are all still to run.
        if (position.previous?.responseHash !== undefined) await this.#startChildren(args.sessionId, children);
        const child = children.get(next.callId);
        if (child !== undefined) await DBOS.retrieveWorkflow<StepReceipt>(child).getResult();
      }
      return runTransaction(() => this.#unit(args, position), "dshUnit", { dsName: this.#transactions.name });
    }).then((receipts) => receipts.at(-1)!);
  }

  /** Starts a workflow for each child turn the open answer's subagent calls need (a recorded step decides which), and notes them in `children`. */
  async #startChildren(sessionId: string, children: Map<string, string>): Promise<void> {
    children.clear();
    const turns = await DBOS.runStep(async () => childTurnArgs(await this.#sessions(), sessionId, this.#agent), { name: "dshSubagentTurns" });
    for (const [callId, child] of turns) {
      const workflowId = turnWorkflowId(child.sessionId, child.turn);
      await DBOS.startWorkflow(this.#workflow, { workflowID: workflowId })(child);
      children.set(callId, workflowId);
    }
  }

  /**
   * One unit, inside its DBOS transaction: open the session (a new writer epoch, so an older attempt
   * still running is refused), run the unit with its appends on the transaction's connection (a
   * tool's intent committed apart), close the session.
   */
  async #unit(args: TurnArgs, position: TurnPosition): Promise<StepReceipt> {
    const store = await this.#sessions();
    const client = this.#transactions.client();
    const { log } = await store.open(args.sessionId, { registry: createAgentRegistry() });
    try {
      const agent = await agentOf(parentIn(log), args.sessionId, store, this.#agent);
      const options: DurableTurnOptions = {
        ...agent,
        config: args.config,
        systemPrompt: args.systemPrompt ?? agent.systemPrompt ?? new SurfaceManager(log).systemPrompt() ?? "",
        commitApart: (work) => store.appendApart(log, work),
      };
      return await store.appendWithin(client, log, () => advanceTurn(log, options, position));
    } catch (error) {
      this.#onUnitError?.(error, { sessionId: args.sessionId, turn: args.turn, head: position.head });
      throw error;
    } finally {
      await log.close().catch(() => undefined);
    }
  }
}

/** The first line of what DBOS logs: a message, or an error's message (never its stack). */
function firstLine(entry: unknown): string {
  const text = entry instanceof Error ? entry.message : typeof entry === "string" ? entry : JSON.stringify(entry);
  return (text ?? "").split("\n")[0]!;
}

/** A DBOS logger that writes its warnings and errors as one line each through `write` (`prefix`, then the message, never a stack); the rest is dropped. */
export function lineLogger(write: (line: string) => void, prefix = "dsh-dbos: "): DLogger {
  return {
    info: () => undefined,
    debug: () => undefined,
    warn: (entry) => write(`${prefix}${firstLine(entry)}`),
    error: (entry) => write(`${prefix}${firstLine(entry)}`),
  };
}

/** The advisory lock key workers launching on one database take in turn (an arbitrary constant: "dsh-dbos"). */
const LAUNCH_LOCK = 0x64736864626f73n;

/** How long a launch waits for another worker's to finish, and how often it asks. */
const LAUNCH_WAIT_MS = 120_000;
const LAUNCH_POLL_MS = 100;

/**
 * Runs `launch` holding the database's launch lock, on a connection of its own that is closed after.
 * The lock is asked for again and again, never waited on inside a statement: a statement waiting
 * would hold a snapshot, and DBOS's migrations build indexes concurrently, which wait for every
 * snapshot to end (a deadlock PostgreSQL does not detect).
 */
async function oneLaunchAtATime(url: string, launch: () => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const started = Date.now();
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [LAUNCH_LOCK.toString()]);
      if (rows[0]?.locked === true) break;
      if (Date.now() - started > LAUNCH_WAIT_MS) throw new DurableError("DURABLE_LAUNCH_BLOCKED", `another worker has been launching on this database for over ${LAUNCH_WAIT_MS / 1000} s: is one stuck?`);
      await new Promise((resolve) => setTimeout(resolve, LAUNCH_POLL_MS));
    }
    await launch();
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The errors of a database that cannot be reached (refused, unknown host, down, restarting, too many clients, bad password). */
const UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT", "EAI_AGAIN", "57P01", "57P02", "57P03", "53300", "28P01", "3D000"]);

/** `error` as `LOG_STORE_UNAVAILABLE` when it says the database cannot be reached; any other as it is. */
function storeUnavailable(url: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (error instanceof LogError || typeof code !== "string" || !UNREACHABLE.has(code)) return error;
  return new LogError("LOG_STORE_UNAVAILABLE", `cannot reach the sessions' database ${maskUrlPassword(url)}: ${(error as Error).message}`, { cause: error });
}

/** The turn the log leaves open (started, never ended), if any. */
function openTurn(log: EventLog): number | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (turnEndEvent.is(event)) return undefined;
    if (turnStartEvent.is(event)) return event.data.turn;
  }
  return undefined;
}

async function readOrCreate(store: PostgresStore, sessionId: string): Promise<EventLog> {
  try {
    return (await store.read(sessionId, createAgentRegistry())).log;
  } catch (error) {
    if (!(error instanceof LogError) || error.code !== "LOG_NOT_FOUND") throw error;
    const created = await store.create({ registry: createAgentRegistry(), sessionId }).catch(async (raced: unknown) => {
      if (raced instanceof LogError && raced.code === "LOG_EXISTS") return store.open(sessionId, { registry: createAgentRegistry() });
      throw raced;
    });
    await created.log.close();
    return created.log;
  }
}
