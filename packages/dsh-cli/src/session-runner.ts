import { mkdir, readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { Agent, continuedSelection, type CompactionOptions, type ContentInput } from "dsh-agent";
import { putImage } from "dsh-attachments";
import { foldRequestHeader } from "dsh-header";
import { LlmRuntime, type LlmCallConfig } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { loadScenario, startSimulator, type Simulator } from "dsh-simulator";
import { SurfaceManager } from "dsh-surface";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { showProgress } from "./progress.js";
import { apiKeyFor, providerProfile, type ProviderProfile } from "./providers.js";
import { SELECTION_OPTIONS, SELECTION_USAGE, sessionConfig } from "./selection.js";
import { attachmentStore } from "./session.js";
import type { OpenedSession } from "./store.js";
import type { OwnFileFlags } from "./own-files.js";
import { workspaceTools } from "dsh-workspace-tools";
import { MCP_OPTIONS, MCP_USAGE, cliMcpTools } from "./mcp-tools.js";
import { terminalApprover } from "./approve.js";
import { agentTools, delegateTool } from "./agent-tools.js";
import type { McpTools } from "dsh-mcp";
import { SIGNING_OPTIONS, SIGNING_USAGE } from "./signing.js";

/** The step limit `dsh run` and `dsh resume` give a turn when `--max-steps` is not given. */
export const DEFAULT_MAX_STEPS = 16;

export const DEFAULT_SYSTEM_PROMPT =
  "You are dsh, a careful assistant with a read-only view of the user's working directory. " +
  "Use list_dir and read_file to look before you answer, and answer briefly.";

/** The `parseArgs` options every command that talks to a provider shares. */
export const PROVIDER_OPTIONS = {
  provider: { type: "string" },
  "base-url": { type: "string" },
  model: { type: "string" },
  timeout: { type: "string", default: "120000" },
  scenario: { type: "string" },
  "record-wire": { type: "string" },
  objects: { type: "string" },
  ...SELECTION_OPTIONS,
  ...MCP_OPTIONS,
} as const;

/** The `parseArgs` options of the agent's settings: the step limit, compaction and trimming. */
export const AGENT_SETTING_OPTIONS = {
  "max-steps": { type: "string", default: String(DEFAULT_MAX_STEPS) },
  "context-window": { type: "string" },
  "compact-at": { type: "string", default: "0.8" },
  "trim-results": { type: "string" },
} as const;
export const AGENT_SETTING_USAGE = "[--max-steps N] [--context-window TOKENS] [--compact-at SHARE] [--trim-results CHARS]";

/** The `parseArgs` options of commands that run a turn. */
export const TURN_OPTIONS = {
  ...PROVIDER_OPTIONS,
  system: { type: "string" },
  ...AGENT_SETTING_OPTIONS,
  image: { type: "string", multiple: true },
  store: { type: "string" },
  approve: { type: "boolean" },
  subagents: { type: "boolean" },
  ...SIGNING_OPTIONS,
} as const;

export const PROVIDER_USAGE = `[--provider sim|sim-anthropic|sim-openai-responses|sim-gemini|deepseek|openai|openai-compatible|openai-responses|anthropic|gemini] [--base-url URL] [--model M] ${SELECTION_USAGE} [--timeout MS] [--scenario FILE] [--record-wire FILE] [--objects DIR] ${MCP_USAGE}`;
export const TURN_USAGE = `${PROVIDER_USAGE} [--system TEXT] ${AGENT_SETTING_USAGE} [--image FILE]... [--approve] [--subagents] [--store URL] ${SIGNING_USAGE}`;

type ProviderValues = { [K in Exclude<keyof typeof PROVIDER_OPTIONS, "cache-diagnostics" | keyof typeof MCP_OPTIONS>]?: string | undefined } & {
  "cache-diagnostics"?: boolean | undefined;
  mcp?: string[] | undefined;
  "mcp-url"?: string[] | undefined;
  "mcp-safe-to-rerun"?: string[] | undefined;
};
type TurnValues = ProviderValues & {
  system?: string | undefined;
  "max-steps"?: string | undefined;
  "context-window"?: string | undefined;
  "compact-at"?: string | undefined;
  "trim-results"?: string | undefined;
  image?: string[] | undefined;
  store?: string | undefined;
  approve?: boolean | undefined;
  subagents?: boolean | undefined;
};

/** A started provider: the runtime to dispatch through, the MCP servers' tools the flags added, and how to stop both. */
export interface ProviderSession {
  readonly profile: ProviderProfile;
  readonly runtime: LlmRuntime;
  readonly mcp: McpTools | undefined;
  close(): Promise<void>;
}

function wholeNumber(value: string | undefined, option: string, minimum: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum) throw new CliError(`${option} takes a whole number of at least ${minimum}`, EXIT.usage);
  return number;
}

/** The number an option gives, above 0 and at most `most`, or a usage error saying the option takes `what`. */
export function positiveNumber(value: string | undefined, option: string, what: string, most = Infinity): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!(number > 0 && number <= most)) throw new CliError(`${option} takes ${what}`, EXIT.usage);
  return number;
}

/** What `--compact-at` takes. */
export const COMPACT_AT = "a share of the context window, above 0 and at most 1";

/** Starts the provider named `providerName` (the embedded simulator for `sim` without `--base-url`). */
export async function startProvider(providerName: string, values: ProviderValues, io: CliIo): Promise<ProviderSession> {
  const profile = providerProfile(providerName);
  const idleTimeoutMs = wholeNumber(values.timeout, "--timeout", 1)!;
  const inProcess = profile.simulated && values["base-url"] === undefined;
  if (!inProcess && (values.scenario !== undefined || values["record-wire"] !== undefined)) {
    throw new CliError("--scenario and --record-wire apply to the embedded simulator only", EXIT.usage);
  }
  const credentialedUrl = values["base-url"] !== undefined && URL.canParse(values["base-url"]) && new URL(values["base-url"]).username !== "";
  const apiKey = credentialedUrl ? undefined : apiKeyFor(profile, io.env);
  if (!profile.simulated && profile.baseUrl === undefined && values["base-url"] === undefined) throw new CliError(`--provider ${profile.name} needs --base-url: the server's Chat Completions root, e.g. http://127.0.0.1:8000/v1`, EXIT.usage);
  if (!profile.simulated && apiKey === undefined && !credentialedUrl && profile.keyOptional !== true) {
    throw new CliError(`no API key for ${profile.name}: set ${profile.keyVariables.join(" or ")}`, EXIT.usage);
  }
  let simulator: Simulator | undefined;
  if (inProcess) {
    const recordTo = values["record-wire"] === undefined ? undefined : resolve(io.cwd, values["record-wire"]);
    if (recordTo !== undefined) await mkdir(dirname(recordTo), { recursive: true });
    simulator = await startSimulator({
      scenario: values.scenario === undefined ? { policy: "explore" } : await loadScenario(resolve(io.cwd, values.scenario)),
      ...(recordTo === undefined ? {} : { recordTo }),
      // A provider's cache outlives the client: the embedded simulator's lives in the working directory.
      cacheFile: resolve(io.cwd, SIMULATOR_CACHE_FILE),
      // Nothing reads its exchanges' bodies, which grow with the square of a long session.
      keepBodies: false,
    });
  }
  const simulatorUrl = simulator === undefined ? undefined : profile.wire.api === "messages" ? simulator.origin : profile.wire.api === "gemini" ? `${simulator.origin}/v1beta` : simulator.url;
  const adapter = profile.adapter({ baseUrl: simulatorUrl ?? values["base-url"] ?? profile.baseUrl!, apiKey, idleTimeoutMs });
  const attachments = attachmentStore(io.cwd, values.objects);
  let mcp: McpTools | undefined;
  try {
    mcp = await cliMcpTools(values, workspaceTools(io.cwd).map((tool) => tool.schema.name), attachments, io);
  } catch (error) {
    await simulator?.close();
    throw error;
  }
  return {
    profile,
    runtime: new LlmRuntime({ adapters: [adapter], attachments }),
    mcp,
    close: async () => {
      await mcp?.close();
      await simulator?.close();
    },
  };
}

/** The agent settings the flags choose: the step limit, and compaction (with trimming) when a context window is given. */
export function agentSettings(values: Pick<TurnValues, "max-steps" | "context-window" | "compact-at" | "trim-results">): { readonly maxSteps: number; readonly compaction?: CompactionOptions } {
  const contextWindow = wholeNumber(values["context-window"], "--context-window", 1);
  const threshold = positiveNumber(values["compact-at"] ?? "0.8", "--compact-at", COMPACT_AT, 1)!;
  const maxChars = wholeNumber(values["trim-results"], "--trim-results", 1);
  if (maxChars !== undefined && contextWindow === undefined) throw new CliError("--trim-results relieves pressure on a context window: give --context-window too", EXIT.usage);
  const maxSteps = wholeNumber(values["max-steps"], "--max-steps", 1) ?? DEFAULT_MAX_STEPS;
  if (contextWindow === undefined) return { maxSteps };
  return { maxSteps, compaction: { contextWindow, threshold, ...(maxChars === undefined ? {} : { trim: { maxChars } }) } };
}

/**
 * The agent for a CLI session: workspace tools (dsh's own files out of their view), the MCP servers'
 * tools and with `--subagents` the `delegate` tool, the system prompt and compaction options from the flags.
 */
export function cliAgent(session: Pick<OpenedSession, "info" | "log" | "store">, provider: ProviderSession, config: LlmCallConfig, values: TurnValues & OwnFileFlags, io: CliIo): Agent {
  const tools = agentTools(provider, values, io);
  if (values.subagents === true) tools.register(delegateTool({ sessionId: session.info.sessionId, store: session.store }, provider, config, { ...values, maxSteps: agentSettings(values).maxSteps }, io));
  const approve = values.approve === true ? terminalApprover(io) : undefined;
  return new Agent({
    log: session.log,
    runtime: provider.runtime,
    config,
    systemPrompt: values.system ?? DEFAULT_SYSTEM_PROMPT,
    tools,
    ...(approve === undefined ? {} : { approve }),
    ...agentSettings(values),
  });
}

/** The turn's input: the prompt, then each `--image` file, stored (content-addressed) in the attachment store the log references. */
export async function turnInput(prompt: string, values: TurnValues, io: CliIo): Promise<ContentInput> {
  if (values.image === undefined || values.image.length === 0) return prompt;
  const store = attachmentStore(io.cwd, values.objects);
  const content: Exclude<ContentInput, string>[number][] = [{ type: "text", text: prompt }];
  for (const path of values.image) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(resolve(io.cwd, path));
    } catch (cause) {
      throw new CliError(`cannot read --image ${path}: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, EXIT.usage);
    }
    try {
      content.push({ type: "image", image: await putImage(store, bytes) });
    } catch (cause) {
      throw new CliError(`--image ${path} is not an image dsh can send: ${(cause as Error).message}`, EXIT.usage);
    }
  }
  return content;
}

/** Where the embedded simulator keeps its prompt caches between runs, relative to the working directory. */
export const SIMULATOR_CACHE_FILE = ".dsh/simulator-cache.json";

/** Runs one turn with progress on the terminal; closes the log; returns the exit code. */
export async function runTurn(agent: Agent, logPath: string, input: ContentInput, io: CliIo): Promise<number> {
  const progress = showProgress(io, () => agent.log.whenDurable());
  const unsubscribe = agent.log.subscribe((events) => events.forEach(progress.event));
  try {
    const result = await agent.run(input, { onChunk: progress.chunk, ...(io.signal === undefined ? {} : { signal: io.signal }) });
    await progress.finish();
    io.stderr.write(`dsh: turn ${result.turn} ${result.reason} after ${result.steps} step(s)\n`);
    if (result.reason === "aborted") return EXIT.interrupted;
    return result.reason === "completed" ? EXIT.ok : EXIT.failure;
  } finally {
    await progress.finish();
    unsubscribe();
    await agent.log.close();
    io.stderr.write(`dsh: log: ${logPath}\n`);
  }
}

/**
 * The call config a resumed (or forked) session continues with: the selection restored from the
 * log's latest header (`continuedSelection`), with `--provider` or `--model` overriding the model
 * (which the first `resume` snapshot then records as drift); a new provider starts on its default model.
 */
export function continuedConfig(log: EventLog, overrides: { provider?: string | undefined; model?: string | undefined }): LlmCallConfig {
  const logged = foldRequestHeader(log)?.header.config.provider;
  const provider = overrides.provider ?? logged ?? "sim";
  const model = overrides.model ?? (provider === logged ? undefined : providerProfile(provider).defaultModel);
  return continuedSelection(log, { provider, ...(model === undefined ? {} : { model }) });
}

/** The system prompt a continued session runs with: `--system` when given, else the session's own (surface node 0). */
export function continuedPrompt(log: EventLog, values: Pick<TurnValues, "system">): string {
  return values.system ?? new SurfaceManager(log).systemPrompt() ?? DEFAULT_SYSTEM_PROMPT;
}

/**
 * Runs `turn` with the agent that continues an opened session (the selection restored from the log,
 * overridden by `values`), closing the session and its provider on every path.
 */
export async function withContinuedAgent<T>(session: Pick<OpenedSession, "info" | "log" | "store" | "close"> & { readonly location?: string }, values: TurnValues, io: CliIo, turn: (agent: Agent) => Promise<T>): Promise<T> {
  let provider: ProviderSession | undefined;
  try {
    const config = sessionConfig(continuedConfig(session.log, values), values, session.info.sessionId, io);
    provider = await startProvider(config.provider, values, io);
    return await turn(cliAgent(session, provider, config, { ...values, system: continuedPrompt(session.log, values), log: session.location }, io));
  } finally {
    await session.close();
    await provider?.close();
  }
}

/** Continues an opened session with one turn on the terminal (resume, or a fork with a prompt), closing it on every path. */
export function continueSession(session: OpenedSession, prompt: string, values: TurnValues, io: CliIo): Promise<number> {
  return withContinuedAgent(session, values, io, async (agent) => runTurn(agent, session.location, await turnInput(prompt, values, io), io));
}

/**
 * The agent settings a replay of a recorded session takes from the flags: those of {@link agentSettings},
 * with a step limit only when `--max-steps` gives one (else the replay reads it off the log: `recordedStepLimit`).
 */
export function replaySettings(values: Pick<TurnValues, "max-steps" | "context-window" | "compact-at" | "trim-results">): { readonly maxSteps?: number; readonly compaction?: CompactionOptions } {
  const { maxSteps, ...rest } = agentSettings(values);
  return values["max-steps"] === undefined ? rest : { ...rest, maxSteps };
}
