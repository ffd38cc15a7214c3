import type { AttachmentStore } from "dsh-attachments";
import { LlmRuntime, type LlmAdapter, type LlmCallConfig } from "dsh-llm";
import { LogError, createJsonlLog, openJsonlLog, readJsonlLog, type EventLog, type HeadSigning, type SessionStore } from "dsh-log";
import { SurfaceManager } from "dsh-surface";
import { Agent, type AgentOptions } from "./agent.js";
import { continuedSelection } from "./continue.js";
import { AgentError } from "./errors.js";
import { createAgentRegistry } from "./register.js";

/** A session in a store: the id of one to continue or create, or none for a new one with a fresh id. */
export interface StoredSessionRef {
  readonly store: SessionStore;
  readonly id?: string;
}

/** Options of {@link openAgent}: those of {@link Agent} with the log, runtime and config made for you. */
export interface OpenAgentOptions extends Omit<AgentOptions, "log" | "runtime" | "config"> {
  /** A JSONL file (created when missing, continued when it exists) or a session in a store. */
  readonly session: string | StoredSessionRef;
  /** The provider adapters requests go to; or pass `runtime`. */
  readonly adapters?: readonly LlmAdapter[];
  /** A runtime of your own, instead of `adapters`. */
  readonly runtime?: LlmRuntime;
  /** Where image attachments are read from when a request is serialized (with `adapters`). */
  readonly attachments?: AttachmentStore;
  /** The model of a new session; for a continued one, changes to its restored selection. */
  readonly config?: Partial<LlmCallConfig>;
  /** Signs the session's chain head after each commit and appends it to a witness (see dsh-log). */
  readonly signing?: HeadSigning;
}

/** An agent on an opened session. */
export interface AgentSession {
  readonly agent: Agent;
  readonly log: EventLog;
  readonly runtime: LlmRuntime;
  readonly sessionId: string;
  /** Whether the session already had events: the agent continues it (its first request logs `resume`). */
  readonly resumed: boolean;
  /** Closes the session's log, letting another writer in; a store you passed stays open. */
  close(): Promise<void>;
}

/**
 * Opens a session and the agent that runs on it, in one call: the log is created or opened with the
 * agent's event registry, and a session that exists continues with its logged model, choices and
 * system prompt (what `dsh resume` does), unless `config` or `systemPrompt` change them.
 */
export async function openAgent(options: OpenAgentOptions): Promise<AgentSession> {
  const { session, adapters, runtime: given, attachments, config, signing, ...agentOptions } = options;
  const runtime = runtimeOf(given, adapters, attachments);
  const { log, sessionId } = await openLog(session, signing);
  try {
    const resumed = log.length > 0;
    const agent = new Agent({
      ...agentOptions,
      log,
      runtime,
      config: continuedSelection(log, config),
      systemPrompt: agentOptions.systemPrompt ?? new SurfaceManager(log).systemPrompt() ?? "",
    });
    return { agent, log, runtime, sessionId, resumed, close: () => log.close() };
  } catch (error) {
    await log.close();
    throw error;
  }
}

function runtimeOf(runtime: LlmRuntime | undefined, adapters: readonly LlmAdapter[] | undefined, attachments: AttachmentStore | undefined): LlmRuntime {
  if (runtime !== undefined && (adapters !== undefined || attachments !== undefined)) {
    throw new AgentError("AGENT_INVALID_OPTIONS", "pass either runtime or adapters (and attachments), not both");
  }
  if (runtime !== undefined) return runtime;
  if (adapters === undefined || adapters.length === 0) throw new AgentError("AGENT_INVALID_OPTIONS", "openAgent needs adapters (or a runtime) to send requests through");
  return new LlmRuntime({ adapters, ...(attachments === undefined ? {} : { attachments }) });
}

/** Opens the session as its one writer, creating it when it does not exist yet. */
async function openLog(session: string | StoredSessionRef, signing: HeadSigning | undefined): Promise<{ log: EventLog; sessionId: string }> {
  const options = { registry: createAgentRegistry(), signing };
  if (typeof session === "string") {
    const { log, header } = await createJsonlLog(session, options).catch(async (error: unknown) => {
      if (error instanceof LogError && error.code === "LOG_EXISTS") return openJsonlLog(session, options);
      throw error;
    });
    return { log, sessionId: header.sessionId };
  }
  const { store, id } = session;
  const opened =
    id === undefined
      ? await store.create(options)
      : await store.open(id, options).catch(async (error: unknown) => {
          if (error instanceof LogError && error.code === "LOG_NOT_FOUND") return store.create({ ...options, sessionId: id });
          throw error;
        });
  return { log: opened.log, sessionId: opened.info.sessionId };
}

/**
 * Reads a session without writing to it (another process may be running it), with the agent's
 * event registry: a JSONL file, or a session in a store by id. A read holds no lock: there is nothing to close.
 */
export async function readSession(session: string | Required<StoredSessionRef>): Promise<{ readonly log: EventLog; readonly sessionId: string }> {
  if (typeof session === "string") {
    const { header, log } = await readJsonlLog(session, createAgentRegistry());
    return { log, sessionId: header.sessionId };
  }
  const { info, log } = await session.store.read(session.id, createAgentRegistry());
  return { log, sessionId: info.sessionId };
}
