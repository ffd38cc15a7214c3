import type { LlmCallConfig, LlmRuntime, StreamChunk } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { SurfaceManager } from "dsh-surface";
import { compactSurface, type CompactionOptions, type CompactionResult, type TrimOptions } from "./compaction.js";
import { frozenConfig } from "./config.js";
import { AgentError } from "./errors.js";
import { turnStartEvent } from "./events.js";
import type { PreStepListener, RequestListener } from "./hooks.js";
import { Inbox } from "./inbox.js";
import { LoopInstance, type AssembleContext, type Loop } from "./loop.js";
import { loopAdmission } from "./loop-rule.js";
import { acceptQuarantine, trimToolResults } from "./maintenance.js";
import { closeOrphanedTurn, pendingAfterLastTurn } from "./recovery.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { assertPromptNode } from "./step.js";
import { ToolRegistry, type AgentTool, type ContentInput } from "./tools.js";
import type { ToolApprover } from "./approval.js";
import type { ToolEvent } from "./listeners.js";
import type { StructuredOutput } from "./output.js";
import { runTurn, type TurnResult } from "./turn.js";
import { costTotals, stepCosts, type CostTotals, type StepCost } from "./cost.js";

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** The session log; its registry must come from `createAgentRegistry()`. */
  readonly log: EventLog;
  readonly runtime: LlmRuntime;
  /** The explicit call-config selection for this loop instance's first request. */
  readonly config: LlmCallConfig;
  /** The system prompt, rendered at every step; defaults to the empty string. */
  readonly systemPrompt?: string | ((context: AssembleContext) => string | Promise<string>);
  /** The tools, assembled at every step. */
  readonly tools?: ToolRegistry | readonly AgentTool[];
  /** The most steps one turn may take (default 32). */
  readonly maxSteps?: number;
  /**
   * The most tool calls of one answer that run at once (default 8; 1 runs them one after another).
   * Results are logged in the model's order whatever order they finish in.
   */
  readonly toolConcurrency?: number;
  /**
   * Sees each tool call before it runs and allows or denies it; every decision is logged as a
   * `tool/approval` (with who made it), and a denied call's result tells the model it was not run.
   */
  readonly approve?: ToolApprover;
  readonly retry?: RetryPolicy;
  /** Relieves token pressure (trim, compact) and compacts on context overflow; without it the agent never does. */
  readonly compaction?: CompactionOptions;
}

/** Options of one {@link Agent.run}. */
export interface RunOptions {
  readonly signal?: AbortSignal;
  /** Sees every streamed chunk, for progress display. */
  readonly onChunk?: (chunk: StreamChunk) => void;
  /** Hears each tool call start, report progress and finish, for progress display (never logged, never model-visible). */
  readonly onToolEvent?: (event: ToolEvent) => void;
  /** The source recorded on the input's `user/message` (default `user`). */
  readonly source?: string;
  /**
   * Reads the final answer as a structured value (give the same output's `responseFormat` in the call
   * config, so the provider is asked for it): the result's `output` holds the value, or why it is not one.
   */
  readonly output?: StructuredOutput<unknown>;
}

function toolConcurrencyOf(value: number | undefined): number {
  if (value === undefined) return 8;
  if (!Number.isInteger(value) || value < 1) throw new AgentError("AGENT_INVALID_OPTIONS", `toolConcurrency must be a whole number of at least 1, not ${value}`);
  return value;
}

/** The logs an agent in this process is running a turn on; a second agent on the same log is refused. */
const busyLogs = new WeakSet<EventLog>();

/**
 * The agent loop. Every step claims its inbox batch, assembles prompt and tools, runs
 * `agent/pre-step`, logs what enters the request, lets `agent/request` replace the call-config
 * seed, writes the owed header snapshot and the dispatch boundary, and only then builds the request
 * as the fold of the log through that boundary, deep-frozen and marked. Nothing reaches the model
 * that the log cannot explain.
 */
export class Agent {
  readonly log: EventLog;
  readonly surface: SurfaceManager;
  readonly #loop: Loop;
  #running: AbortController | undefined;

  constructor(options: AgentOptions) {
    const selection = frozenConfig(options.config, "invalid config", "AGENT_INVALID_OPTIONS");
    this.log = options.log;
    try {
      this.log.ruleState(loopAdmission);
    } catch (cause) {
      throw new AgentError("AGENT_INVALID_OPTIONS", "the log's registry lacks the agent's events: create it with createAgentRegistry()", { cause });
    }
    this.surface = new SurfaceManager(options.log);
    assertPromptNode(this.surface);
    const prompt = options.systemPrompt ?? "";
    this.#loop = {
      log: this.log,
      surface: this.surface,
      runtime: options.runtime,
      tools: options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools ?? []),
      inbox: Inbox.of(pendingAfterLastTurn(options.log)),
      hooks: { preStep: new Set(), request: new Set() },
      settings: {
        systemPrompt: typeof prompt === "string" ? () => prompt : prompt,
        maxSteps: options.maxSteps ?? 32,
        toolConcurrency: toolConcurrencyOf(options.toolConcurrency),
        approve: options.approve,
        retry: options.retry ?? DEFAULT_RETRY_POLICY,
        compaction: options.compaction,
      },
      instance: new LoopInstance(selection),
    };
  }

  /** The tool registry; tools registered or removed here are offered from the next step on. */
  get tools(): ToolRegistry {
    return this.#loop.tools;
  }

  /** Subscribes a listener; returns the unsubscribe function. */
  on(event: "agent/pre-step", listener: PreStepListener): () => void;
  on(event: "agent/request", listener: RequestListener): () => void;
  on(event: "agent/pre-step" | "agent/request", listener: PreStepListener | RequestListener): () => void {
    if (event !== "agent/pre-step" && event !== "agent/request") throw new AgentError("AGENT_INVALID_OPTIONS", `unknown agent event ${String(event)}`);
    const set: Set<PreStepListener | RequestListener> = event === "agent/pre-step" ? this.#loop.hooks.preStep : this.#loop.hooks.request;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Queues model-visible context; it enters the next step that claims the inbox. */
  inject(content: ContentInput, source = "inject"): void {
    this.#loop.inbox.push(content, source);
  }

  /**
   * Selects the call config of the next request (the waterfall still runs over it); the header
   * snapshot records the change. Called during a request's waterfall, it applies to the next one.
   */
  reconfigure(selection: LlmCallConfig): void {
    this.#loop.instance.select(frozenConfig(selection, "invalid config", "AGENT_INVALID_OPTIONS"));
  }

  /** Aborts the running turn, if any. */
  abort(): void {
    this.#running?.abort();
  }

  /**
   * Runs one turn on `input`: steps until the model answers without tool calls (and the inbox is
   * empty), the step limit, an abort, or a failure. Failures are logged, then thrown.
   */
  async run(input: ContentInput, options: RunOptions = {}): Promise<TurnResult> {
    return this.#exclusive("start a turn", async (controller) => {
      const signal = options.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, options.signal]);
      await closeOrphanedTurn(this.#loop, signal);
      this.#loop.inbox.push(input, options.source ?? "user");
      const turn = this.log.ruleState(loopAdmission).turns;
      await this.log.append(turnStartEvent.input({ turn }));
      const result = await runTurn(this.#loop, turn, signal, { onChunk: options.onChunk, onToolEvent: options.onToolEvent });
      if (options.output === undefined || result.reason !== "completed") return result;
      return { ...result, output: options.output.parse(result.text) };
    });
  }

  /**
   * Compacts the surface now (reason `manual`), between turns, with the agent's compaction options
   * or `options`; the outcome is logged either way.
   */
  async compact(options: Omit<CompactionOptions, "contextWindow"> = this.#loop.settings.compaction ?? {}): Promise<CompactionResult> {
    return this.#exclusive("compact", async (controller) => {
      await closeOrphanedTurn(this.#loop, controller.signal);
      return compactSurface({ log: this.log, surface: this.surface, runtime: this.#loop.runtime, options }, "manual");
    });
  }

  /**
   * Trims old tool results in one batch: each result outside the `keepRecent` most recent nodes whose
   * text is longer than `maxChars` becomes a short placeholder (a logged single-entry replace of the
   * same call). Idempotent. Returns how many were trimmed.
   */
  async trimToolResults(options: TrimOptions = {}): Promise<number> {
    return this.#exclusive("trim tool results", async () => trimToolResults(this.log, this.surface, options));
  }

  /**
   * Accepts the quarantine of an unreadable attachment: every surface node that references `digest`
   * is replaced (one batch) by the same message with a text placeholder in place of the image.
   * Earlier requests stay exactly as logged. Returns how many nodes changed.
   */
  async acceptQuarantine(digest: string): Promise<number> {
    return this.#exclusive("accept a quarantine", async () => acceptQuarantine(this.log, this.surface, digest));
  }

  /** Runs `work` as the only operation on this agent and on its log in this process. */
  /** What every step of the session so far used and cost at the adapters' prices, and the totals (`dsh cost`'s figures). */
  cost(): { readonly steps: readonly StepCost[]; readonly totals: CostTotals } {
    const steps = stepCosts(this.#loop.log.slice(), (provider, model) => this.#loop.runtime.price(provider, model));
    return { steps, totals: costTotals(steps) };
  }

  async #exclusive<T>(action: string, work: (controller: AbortController) => Promise<T>): Promise<T> {
    if (this.#running !== undefined) throw new AgentError("AGENT_BUSY", `cannot ${action} while the agent is busy`);
    if (busyLogs.has(this.log)) throw new AgentError("AGENT_BUSY", `cannot ${action}: another agent is working on this log`);
    const controller = new AbortController();
    this.#running = controller;
    busyLogs.add(this.log);
    try {
      return await work(controller);
    } finally {
      this.#running = undefined;
      busyLogs.delete(this.log);
    }
  }
}
