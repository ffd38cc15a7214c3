import { ToolRegistry, type ContentInput } from "dsh-agent";
import type { AgentContext, DurableTurns, TurnAgent } from "dsh-dbos";
import type { LlmCallConfig } from "dsh-llm";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { agentSettings, type ProviderSession } from "./session-runner.js";
import { sessionConfig, type SelectionValues } from "./selection.js";
import { agentTools, delegateTool } from "./agent-tools.js";
import { displayUrl, isPostgresUrl, optionalModule, storeUrl } from "./store.js";
import type { OwnFileFlags } from "./own-files.js";

/** The `parseArgs` options of commands that run turns on a durable-execution engine. */
export const ENGINE_OPTIONS = { engine: { type: "string" }, executor: { type: "string" } } as const;
export const ENGINE_USAGE = "[--engine dbos [--executor ID]]";

/** The flags a durable turn cannot honour yet, with why. */
const NOT_DURABLE: Readonly<Record<string, string>> = {
  approve: "asks at the terminal, which a recovering worker cannot do",
  "signing-key": "signs heads as they commit, and a durable unit commits with the engine's record",
};

/**
 * The PostgreSQL URL a durable run uses, after checking the flags: `--engine dbos` only, on a
 * PostgreSQL store (DBOS keeps its records beside the sessions), without the flags it cannot honour.
 */
export function durableStore(values: { readonly engine?: string | undefined } & Readonly<Record<string, unknown>>, io: CliIo): string {
  if (values.engine !== "dbos") throw new CliError(`--engine takes dbos, not ${String(values.engine)}`, EXIT.usage);
  const url = storeUrl(values.store as string | undefined, io);
  if (!isPostgresUrl(url)) throw new CliError("--engine dbos runs on PostgreSQL: give --store postgres://… (or set DSH_STORE)", EXIT.usage);
  for (const [flag, why] of Object.entries(NOT_DURABLE)) {
    if (values[flag] !== undefined) throw new CliError(`--${flag} does not work with --engine dbos yet: it ${why}`, EXIT.usage);
  }
  return url;
}

/** The flags {@link launchTurns} builds the agent from. */
type AgentFlags = Parameters<typeof agentSettings>[0] & OwnFileFlags & SelectionValues & { readonly executor?: string | undefined; readonly model?: string | undefined; readonly subagents?: boolean | undefined };

/**
 * Registers the turn workflow with the agent the flags describe (the provider's runtime, the
 * workspace and MCP tools, the step limit and compaction, with `--subagents` the `delegate` tool,
 * whose subagents run on the session's model as `dsh run` selects it) and launches DBOS on `url`; the
 * turns this executor left pending start again now. Answers stream to stdout as they come.
 */
export async function launchTurns(url: string, provider: ProviderSession, values: AgentFlags, io: CliIo): Promise<DurableTurns> {
  const { DurableTurns } = await optionalModule("dsh-dbos", () => import("dsh-dbos"));
  const tools = agentTools(provider, values, io);
  const agent: TurnAgent = {
    runtime: provider.runtime,
    tools,
    ...agentSettings(values),
    onChunk: (chunk) => {
      if (chunk.type === "text-delta") io.stdout.write(chunk.text);
    },
  };
  const configs = new Map<string, LlmCallConfig>();
  const agentOf = (sessionId: string, { store }: AgentContext): TurnAgent => {
    if (values.subagents !== true) return agent;
    const config = configs.get(sessionId) ?? sessionConfig({ provider: provider.profile.name, model: values.model ?? provider.profile.defaultModel }, values, sessionId, io);
    configs.set(sessionId, config);
    return { ...agent, tools: new ToolRegistry([...tools.list(), delegateTool({ sessionId, store }, provider, config, { ...values, maxSteps: agentSettings(values).maxSteps }, io)]) };
  };
  const turns = DurableTurns.register({
    url,
    agent: agentOf,
    onUnitError: (error) => io.stderr.write(`dsh: a unit failed and rolled back: ${error instanceof Error ? error.message : String(error)}\n`),
  });
  const executorId = values.executor ?? io.env.DBOS__VMID;
  const { lineLogger } = await optionalModule("dsh-dbos", () => import("dsh-dbos"));
  await turns.launch({ logger: lineLogger((line) => io.stderr.write(`${line}\n`), "dsh: dbos: "), ...(executorId === undefined ? {} : { executorId }) });
  return turns;
}

/** Runs a new session's first turn as a workflow on `url`, printing the answer as it streams and the outcome on stderr. */
export async function durableTurn(
  url: string,
  provider: ProviderSession,
  turn: { readonly sessionId: string; readonly input: ContentInput; readonly config: LlmCallConfig; readonly systemPrompt: string },
  values: Parameters<typeof launchTurns>[2],
  io: CliIo,
): Promise<number> {
  const turns = await launchTurns(url, provider, values, io);
  try {
    const outcome = await turns.run(turn.sessionId, turn.input, { config: turn.config, systemPrompt: turn.systemPrompt });
    io.stdout.write("\n");
    io.stderr.write(`dsh: turn ${outcome.turn} ${outcome.reason}${outcome.error === undefined ? "" : `: ${outcome.error.code} ${outcome.error.message}`} (workflow ${outcome.workflowId})\n`);
    io.stderr.write(`dsh: log: ${displayUrl(url)}#${turn.sessionId}\n`);
    return outcome.reason === "completed" ? EXIT.ok : EXIT.failure;
  } finally {
    await turns.shutdown();
  }
}
