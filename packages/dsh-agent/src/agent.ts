import {
  buildEpochHeader,
  headerAdmission,
  owedHeaderSnapshot,
  requestHeaderEvent,
  selectionFromHeader,
  type EpochHeader,
} from "dsh-header";
import {
  LlmError,
  StreamAssembler,
  deepFreeze,
  llmCallConfigSchema,
  markAgentLoopRequest,
  type FrozenGenerateOptions,
  type GenerateResult,
  type LlmCallConfig,
  type LlmRuntime,
  type StreamChunk,
  type ToolCallBlock,
  type ToolSchema,
} from "dsh-llm";
import type { EventInput, EventLog } from "dsh-log";
import { SurfaceManager, assistantMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { z } from "zod";
import { AgentError, ToolError } from "./errors.js";
import { compactSurface, measuredTokens, type CompactionContext, type CompactionOptions, type CompactionResult } from "./compaction.js";
import {
  compactionEndEvent,
  loopAdmission,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepStartEvent,
  turnEndEvent,
  turnStartEvent,
  type StepEndReason,
  type TurnEndReason,
} from "./events.js";
import type { PreStepDecision, PreStepListener, RequestListener } from "./hooks.js";
import { Inbox, type InboxItem } from "./inbox.js";
import { loggedError } from "./logged-error.js";
import { acceptQuarantine, quarantineProposal, trimToolResults } from "./maintenance.js";
import { buildLoopRequest } from "./request.js";
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep, type RetryPolicy } from "./retry.js";
import { ToolRegistry, toContent, toolErrorOutcome, type AgentTool, type ContentInput, type ToolOutcome } from "./tools.js";

/** What the prompt and tool assemblers are told at each step. */
export interface AssembleContext {
  readonly turn: number;
  readonly step: number;
}

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** The session log; its registry must come from `createAgentRegistry()` (or register the same). */
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
  readonly retry?: RetryPolicy;
  /** Compacts under token pressure and on context overflow; without it the agent never compacts. */
  readonly compaction?: CompactionOptions;
}

/** Options of one {@link Agent.run}. */
export interface RunOptions {
  readonly signal?: AbortSignal;
  /** Sees every streamed chunk, for progress display. */
  readonly onChunk?: (chunk: StreamChunk) => void;
  /** The source recorded on the input's `user/message` (default `user`). */
  readonly source?: string;
}

/** How a turn ended. */
export interface TurnResult {
  readonly turn: number;
  readonly reason: TurnEndReason;
  readonly steps: number;
  /** The text of the last assistant message of the turn, if any. */
  readonly text: string;
}

interface StepOutcome {
  readonly reason: StepEndReason;
  readonly continueTurn: boolean;
  readonly text: string;
}

class StepFailure extends Error {
  constructor(readonly reason: StepEndReason, readonly failure: unknown) {
    super("step failed");
  }
}

const CLOSED_BY_INTERRUPTION = "not run: the session was interrupted before this call completed";

/** Validates a call config from options or a hook, and returns a private frozen copy of it. */
function frozenConfig(value: unknown, what: string, code: "AGENT_INVALID_OPTIONS" | "AGENT_INVALID_HOOK_RESULT"): LlmCallConfig {
  const parsed = llmCallConfigSchema.safeParse(value);
  if (!parsed.success) throw new AgentError(code, `${what}: ${z.prettifyError(parsed.error)}`);
  return deepFreeze(structuredClone(parsed.data));
}

/**
 * The agent loop. Every step claims its inbox batch, assembles prompt and tools, runs
 * `agent/pre-step`, logs what enters the request, lets `agent/request` replace the call-config
 * seed, writes the owed header snapshot and only then builds the request from the log, deep-frozen
 * and marked, and dispatches it. Nothing reaches the model that the log cannot explain.
 */
export class Agent {
  readonly log: EventLog;
  readonly surface: SurfaceManager;
  readonly #runtime: LlmRuntime;
  readonly #tools: ToolRegistry;
  readonly #systemPrompt: (context: AssembleContext) => string | Promise<string>;
  readonly #maxSteps: number;
  readonly #retry: RetryPolicy;
  readonly #compaction: CompactionOptions | undefined;
  readonly #inbox = new Inbox();
  readonly #preStep = new Set<PreStepListener>();
  readonly #request = new Set<RequestListener>();
  #selection: LlmCallConfig | undefined;
  #wroteHeader = false;
  #generationAtLastRequest = -1;
  #running: AbortController | undefined;

  constructor(options: AgentOptions) {
    this.#selection = frozenConfig(options.config, "invalid config", "AGENT_INVALID_OPTIONS");
    this.log = options.log;
    this.log.ruleState(loopAdmission);
    this.log.ruleState(headerAdmission);
    this.surface = new SurfaceManager(options.log);
    this.#runtime = options.runtime;
    this.#tools = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools ?? []);
    const prompt = options.systemPrompt ?? "";
    this.#systemPrompt = typeof prompt === "string" ? () => prompt : prompt;
    this.#maxSteps = options.maxSteps ?? 32;
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.#compaction = options.compaction;
  }

  /** The tool registry; tools registered or removed here are offered from the next step on. */
  get tools(): ToolRegistry {
    return this.#tools;
  }

  /** Subscribes a listener; returns the unsubscribe function. */
  on(event: "agent/pre-step", listener: PreStepListener): () => void;
  on(event: "agent/request", listener: RequestListener): () => void;
  on(event: "agent/pre-step" | "agent/request", listener: PreStepListener | RequestListener): () => void {
    const set: Set<PreStepListener | RequestListener> = event === "agent/pre-step" ? this.#preStep : this.#request;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Queues model-visible context; it enters the next step that claims the inbox. */
  inject(content: ContentInput, source = "inject"): void {
    this.#inbox.push({ content: toContent(content), source });
  }

  /** Replaces the call-config selection from the next step on (the change is logged with it). */
  reconfigure(selection: LlmCallConfig): void {
    this.#selection = frozenConfig(selection, "invalid config", "AGENT_INVALID_OPTIONS");
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
    this.#assertIdle("start a turn");
    const controller = new AbortController();
    this.#running = controller;
    const signal = options.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, options.signal]);
    try {
      await this.#closeOrphanedTurn();
      this.#inbox.push({ content: toContent(input), source: options.source ?? "user" });
      const turn = this.log.ruleState(loopAdmission).turns;
      await this.log.append(turnStartEvent.input({ turn }));
      return await this.#runTurn(turn, signal, options.onChunk);
    } finally {
      this.#running = undefined;
    }
  }

  async #runTurn(turn: number, signal: AbortSignal, onChunk: RunOptions["onChunk"]): Promise<TurnResult> {
    let text = "";
    let compactedForOverflow = false;
    try {
      for (let step = 0; step < this.#maxSteps; step++) {
        await this.#compactUnderPressure(signal);
        let outcome: StepOutcome | "blocked";
        try {
          outcome = await this.#runStep(turn, step, signal, onChunk);
        } catch (error) {
          const overflow = error instanceof StepFailure && error.failure instanceof LlmError && error.failure.code === "LLM_CONTEXT_OVERFLOW";
          if (!overflow || compactedForOverflow || this.#compaction === undefined) throw error;
          compactedForOverflow = true;
          const compaction = await compactSurface(this.#compactionContext(this.#compaction, signal), "overflow");
          if (compaction.outcome !== "completed") throw error;
          continue;
        }
        if (outcome === "blocked") return await this.#endTurn(turn, "blocked", step, text);
        text = outcome.text || text;
        if (outcome.reason !== "completed") return await this.#endTurn(turn, outcome.reason, step + 1, text);
        if (!outcome.continueTurn && this.#inbox.size === 0) return await this.#endTurn(turn, "completed", step + 1, text);
      }
      return await this.#endTurn(turn, "max-steps", this.#maxSteps, text);
    } catch (error) {
      const failure = error instanceof StepFailure ? error.failure : error;
      if (this.log.ruleState(loopAdmission).openTurn === turn) {
        await this.log.append(turnEndEvent.input({ turn, reason: "error", error: loggedError(failure) }));
      }
      throw failure;
    }
  }

  /** Compacts before a step when the latest logged usage reaches the threshold of the context window. */
  async #compactUnderPressure(signal: AbortSignal): Promise<void> {
    const options = this.#compaction;
    if (options === undefined) return;
    const measured = measuredTokens(this.log);
    if (measured === undefined || measured < (options.threshold ?? 0.8) * options.contextWindow) return;
    await compactSurface(this.#compactionContext(options, signal), "threshold", measured);
  }

  #compactionContext(options: CompactionOptions, signal?: AbortSignal): CompactionContext {
    return { log: this.log, surface: this.surface, runtime: this.#runtime, options, ...(signal === undefined ? {} : { signal }) };
  }

  /**
   * Compacts the surface now (reason `manual`), between turns. Uses the agent's compaction options,
   * or `options` when given; the outcome is logged either way.
   */
  async compact(options: Omit<CompactionOptions, "contextWindow"> = this.#compaction ?? {}): Promise<CompactionResult> {
    this.#assertIdle("compact");
    await this.#closeOrphanedTurn();
    return compactSurface(this.#compactionContext({ contextWindow: 0, ...options }), "manual");
  }

  /**
   * Trims old tool results: each result outside the `keepRecent` most recent nodes whose text is
   * longer than `maxChars` is replaced, as a logged single-entry replace of the same call, by a
   * short placeholder. Returns how many were trimmed.
   */
  async trimToolResults(options: { readonly maxChars?: number; readonly keepRecent?: number } = {}): Promise<number> {
    this.#assertIdle("trim tool results");
    return trimToolResults(this.log, this.surface, options);
  }

  /**
   * Accepts the quarantine of an unreadable attachment: every surface node that references
   * `digest` is replaced (a logged replace per node) by the same message with a text placeholder
   * in place of the image. Earlier requests stay exactly as logged. Returns how many nodes changed.
   */
  async acceptQuarantine(digest: string): Promise<number> {
    this.#assertIdle("accept a quarantine");
    return acceptQuarantine(this.log, this.surface, digest);
  }

  #assertIdle(action: string): void {
    if (this.#running !== undefined) throw new AgentError("AGENT_BUSY", `cannot ${action} while a turn is running`);
  }

  async #endTurn(turn: number, reason: TurnEndReason, steps: number, text: string): Promise<TurnResult> {
    await this.log.append(turnEndEvent.input({ turn, reason }));
    return { turn, reason, steps, text };
  }

  async #runStep(
    turn: number,
    step: number,
    signal: AbortSignal,
    onChunk: RunOptions["onChunk"],
  ): Promise<StepOutcome | "blocked"> {
    const batch = this.#inbox.claim();
    let systemPrompt: string;
    let tools: AgentTool[];
    let toolSchemas: ToolSchema[];
    let decision: PreStepDecision;
    try {
      systemPrompt = await this.#systemPrompt({ turn, step });
      tools = this.#tools.list();
      toolSchemas = tools.map((tool) => tool.schema);
      decision = await this.#runPreStep({ turn, step, batch, systemPrompt, tools: toolSchemas, messages: this.surface.deriveMessages() });
    } catch (error) {
      this.#inbox.restore(batch);
      throw error;
    }
    if (decision.action === "reject") {
      this.#inbox.restore(batch);
      return "blocked";
    }
    const promptChange = this.surface.systemPromptInput(systemPrompt);
    const entering: InboxItem[] = [
      ...batch,
      ...(decision.messages ?? []).map((content) => ({ content: toContent(content), source: "pre-step" })),
    ];
    const startsRequestSeries = decision.startsRequestSeries === true;
    await this.log.append([
      stepStartEvent.input(startsRequestSeries ? { turn, step, startsRequestSeries: true } : { turn, step }),
      ...(promptChange === undefined ? [] : [promptChange]),
      ...entering.map((item) => userMessageEvent.input({ content: item.content, source: item.source })),
    ]);
    try {
      const request = await this.#dispatchable(turn, step, toolSchemas, startsRequestSeries, signal);
      const result = await this.#generate(request, turn, step, signal, onChunk);
      return await this.#finishStep(turn, step, result, tools, signal);
    } catch (error) {
      const reason: StepEndReason = error instanceof StepFailure ? error.reason : signal.aborted ? "aborted" : "error";
      const failure = error instanceof StepFailure ? error.failure : error;
      await this.log.append([
        ...quarantineProposal(this.surface, failure),
        ...this.#closeOpenCalls(reason === "aborted" ? "not run: the turn was aborted" : "not run: the step failed"),
        stepEndEvent.input(reason === "aborted" ? { turn, step, reason } : { turn, step, reason, error: loggedError(failure) }),
      ]);
      if (reason === "aborted") return { reason, continueTurn: false, text: "" };
      throw new StepFailure(reason, failure);
    }
  }

  async #runPreStep(context: Parameters<PreStepListener>[0]): Promise<PreStepDecision> {
    const messages: ContentInput[] = [];
    let startsRequestSeries = false;
    for (const listener of this.#preStep) {
      const decision = await listener(context);
      if (decision === undefined) continue;
      if (decision.action === "reject") return decision;
      if (decision.action !== "enter") {
        throw new AgentError("AGENT_INVALID_HOOK_RESULT", "agent/pre-step must return reject, enter or nothing");
      }
      messages.push(...(decision.messages ?? []));
      startsRequestSeries ||= decision.startsRequestSeries === true;
    }
    return { action: "enter", messages, startsRequestSeries };
  }

  /** Runs the request waterfall, writes the owed snapshot and the dispatch marker, and builds the request from the log. */
  async #dispatchable(
    turn: number,
    step: number,
    toolSchemas: readonly ToolSchema[],
    startsRequestSeries: boolean,
    signal: AbortSignal,
  ): Promise<FrozenGenerateOptions> {
    let selection = frozenConfig(this.#seed(), "invalid config", "AGENT_INVALID_OPTIONS");
    for (const listener of this.#request) {
      const replaced = await listener(selection, { turn, step });
      if (replaced !== undefined) selection = frozenConfig(replaced, "agent/request returned an invalid config", "AGENT_INVALID_HOOK_RESULT");
    }
    const next = buildEpochHeader(selection, this.#runtime.modelDefaults(selection.provider, selection.model), toolSchemas);
    const owed = owedHeaderSnapshot({
      latest: this.log.ruleState(headerAdmission)?.header,
      writtenByThisInstance: this.#wroteHeader,
      next,
      startsRequestSeries,
      followsReplace: this.surface.generation !== this.#generationAtLastRequest,
    });
    const events: EventInput[] = owed === undefined ? [] : [requestHeaderEvent.input({ ...owed, header: next })];
    await this.log.append([...events, requestDispatchEvent.input({ turn, step })]);
    this.#wroteHeader = true;
    this.#selection = undefined;
    this.#generationAtLastRequest = this.surface.generation;
    const logged: EpochHeader = this.log.ruleState(headerAdmission)!.header;
    return markAgentLoopRequest(buildLoopRequest(this.surface.deriveMessages(), logged, signal));
  }

  #seed(): LlmCallConfig {
    if (this.#selection !== undefined) return this.#selection;
    const latest = this.log.ruleState(headerAdmission);
    if (latest === undefined) throw new AgentError("AGENT_INVALID_OPTIONS", "no call config to start from");
    return selectionFromHeader(latest.header);
  }

  /** Streams the request, retrying retryable failures with the same frozen object, each retry logged. */
  async #generate(
    request: FrozenGenerateOptions,
    turn: number,
    step: number,
    signal: AbortSignal,
    onChunk: RunOptions["onChunk"],
  ): Promise<GenerateResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        const assembler = new StreamAssembler();
        for await (const chunk of this.#runtime.stream(request)) {
          assembler.push(chunk);
          onChunk?.(chunk);
        }
        return assembler.result();
      } catch (error) {
        if (signal.aborted) throw new StepFailure("aborted", error);
        if (!(error instanceof LlmError) || !error.retryable || attempt > this.#retry.maxRetries) throw error;
        const delayMs = retryDelayMs(this.#retry, attempt, error);
        await this.log.append(requestRetryEvent.input({ turn, step, attempt, delayMs, error: loggedError(error) }));
        await sleep(delayMs, signal).catch((aborted: unknown) => {
          throw new StepFailure("aborted", aborted);
        });
      }
    }
  }

  /** Logs the answer, runs its tool calls in model order and closes the step. */
  async #finishStep(
    turn: number,
    step: number,
    result: GenerateResult,
    tools: readonly AgentTool[],
    signal: AbortSignal,
  ): Promise<StepOutcome> {
    await this.log.append(assistantMessageEvent.input({ content: result.content, source: "model" }));
    const calls = result.content.filter((block): block is ToolCallBlock => block.type === "tool-call");
    const truncated = result.finishReason === "length";
    for (const call of calls) {
      const outcome = truncated
        ? toolErrorOutcome(new ToolError("TOOL_NOT_RUN", "not run: the answer was cut off at the token limit"))
        : await this.#invoke(call, tools, signal);
      await this.log.append(
        toolResultEvent.input({
          callId: call.callId,
          toolName: call.name,
          content: outcome.content,
          isError: outcome.isError,
          source: "tool",
        }),
      );
      for (const context of outcome.additionalContexts) this.inject(context, "tool-context");
    }
    const reason: StepEndReason = signal.aborted ? "aborted" : truncated ? "max-tokens" : "completed";
    await this.log.append(
      stepEndEvent.input({
        turn,
        step,
        reason,
        finishReason: result.finishReason,
        ...(result.usage === undefined ? {} : { usage: result.usage }),
      }),
    );
    const text = result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    return { reason, continueTurn: calls.length > 0, text };
  }

  async #invoke(call: ToolCallBlock, tools: readonly AgentTool[], signal: AbortSignal): Promise<ToolOutcome> {
    if (signal.aborted) return toolErrorOutcome(new ToolError("TOOL_ABORTED", "not run: the turn was aborted"));
    const tool = tools.find((candidate) => candidate.schema.name === call.name);
    if (tool === undefined) {
      return toolErrorOutcome(new ToolError("TOOL_UNKNOWN", `no tool named ${call.name} is offered`));
    }
    return tool.invoke(call.arguments, { callId: call.callId, signal });
  }

  /** Error results for tool calls still awaiting results, so the surface stays sendable. */
  #closeOpenCalls(why: string): EventInput[] {
    return this.surface.state.openCalls.map((call) => {
      const outcome = toolErrorOutcome(new ToolError("TOOL_NOT_RUN", why));
      return toolResultEvent.input({ callId: call.callId, toolName: call.name, content: outcome.content, isError: true, source: "recovery" });
    });
  }

  /** Closes a turn (and a compaction) a crashed process left open, with logged closers, before new work starts. */
  async #closeOrphanedTurn(): Promise<void> {
    const loop = this.log.ruleState(loopAdmission);
    const closers: EventInput[] = [];
    if (loop.compacting) {
      closers.push(compactionEndEvent.input({ outcome: "failed", error: { code: "INTERRUPTED", message: "the session ended during the compaction" } }));
    }
    const turn = loop.openTurn;
    if (turn !== undefined) {
      closers.push(...this.#closeOpenCalls(CLOSED_BY_INTERRUPTION));
      if (loop.openStep !== undefined) closers.push(stepEndEvent.input({ turn, step: loop.openStep.step, reason: "interrupted" }));
      closers.push(turnEndEvent.input({ turn, reason: "interrupted" }));
    }
    if (closers.length > 0) await this.log.append(closers);
  }
}
