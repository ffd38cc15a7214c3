import type { LlmCallConfig, StreamChunk } from "dsh-llm";
import type { EventLog } from "dsh-log";
import type { SurfaceManager } from "dsh-surface";
import type { AgentOptions } from "./agent.js";
import { frozenConfig } from "./config.js";
import { AgentError } from "./errors.js";
import { requestDispatchEvent, turnStartEvent } from "./events.js";
import { Inbox, type InboxItem } from "./inbox.js";
import { LoopInstance, type Loop } from "./loop.js";
import { DEFAULT_RETRY_POLICY } from "./retry.js";
import { ToolRegistry } from "./tools.js";

/** A call of a tool not safe to rerun whose intent is logged but whose result is not: it may have run before the process stopped. */
export interface UncertainCall {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly toolName: string;
  /** The call's raw arguments, as the model wrote them. */
  readonly arguments: string;
}

/** What to do with an {@link UncertainCall}: tell the model it may have run (`report`), or run it again (`run-again`). */
export type UncertainCallDecision = "report" | "run-again";

/** Options of a durable turn: the agent's, for a turn whose units may each run in a different process. */
export interface DurableTurnOptions extends Pick<AgentOptions, "runtime" | "systemPrompt" | "tools" | "maxSteps" | "retry" | "compaction"> {
  /** The call config of the turn's first request; later requests continue from the logged header. */
  readonly config: LlmCallConfig;
  /** Decides each call that may have run before a crash (default: `report`, never run again). */
  readonly onUncertainCall?: (call: UncertainCall) => UncertainCallDecision | Promise<UncertainCallDecision>;
  /**
   * Runs `work` so that its appends are committed when it returns, also inside an engine's
   * transaction: how a request's dispatch is durable before the request is sent, and a tool's intent
   * before the tool runs (default: runs `work` as is, for a log whose appends are durable at once).
   */
  readonly commitApart?: <T>(work: () => Promise<T>) => Promise<T>;
  readonly signal?: AbortSignal;
  /** Sees every streamed chunk, for progress display. */
  readonly onChunk?: (chunk: StreamChunk) => void;
}

/** The seq of the last `request/dispatch` of turn `turn`, if it has one. */
export function lastDispatchOf(log: EventLog, turn: number): number | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (requestDispatchEvent.is(event) && event.data.turn === turn) return seq;
    if (turnStartEvent.is(event)) return undefined;
  }
  return undefined;
}

/**
 * The loop one unit of turn `turn` runs in. The turn is the loop instance: once the turn dispatched a
 * request, the instance wrote its header and settled its selection, whichever process did it, so a
 * unit run again elsewhere logs exactly what an uninterrupted one would.
 */
export function durableLoop(log: EventLog, surface: SurfaceManager, options: DurableTurnOptions, turn: number, inbox: readonly InboxItem[] = []): Loop {
  const maxSteps = options.maxSteps ?? 32;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new AgentError("AGENT_INVALID_OPTIONS", `maxSteps must be a whole number of at least 1, not ${maxSteps}`);
  const instance = new LoopInstance(frozenConfig(options.config, "invalid config", "AGENT_INVALID_OPTIONS"));
  const dispatched = lastDispatchOf(log, turn);
  if (dispatched !== undefined) {
    instance.wroteHeader = true;
    instance.settleSelection(instance.pendingSelection().version);
    instance.generationAtLastRequest = instance.dispatchAt(log, dispatched).generation;
  }
  const prompt = options.systemPrompt ?? "";
  return {
    log,
    surface,
    runtime: options.runtime,
    tools: options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools ?? []),
    inbox: Inbox.of(inbox),
    hooks: { preStep: new Set(), request: new Set() },
    settings: {
      systemPrompt: typeof prompt === "string" ? () => prompt : prompt,
      maxSteps,
      toolConcurrency: 1,
      approve: undefined,
      retry: options.retry ?? DEFAULT_RETRY_POLICY,
      compaction: options.compaction,
    },
    instance,
  };
}
