import { RequestFreezer, type LlmCallConfig, type LlmRuntime } from "dsh-llm";
import type { EventLog } from "dsh-log";
import type { SurfaceManager } from "dsh-surface";
import type { CompactionOptions } from "./compaction.js";
import { AgentError } from "./errors.js";
import type { Hooks } from "./hooks.js";
import type { Inbox } from "./inbox.js";
import { emptyRequestFold, foldRequestEvent, type Dispatch, type RequestFold } from "./request.js";
import type { RetryPolicy } from "./retry.js";
import type { ToolRegistry } from "./tools.js";
import type { ToolApprover } from "./approval.js";

/** What the prompt and tool assemblers are told at each step. */
export interface AssembleContext {
  readonly turn: number;
  readonly step: number;
}

/** How an agent's loop behaves, fixed at construction. */
export interface LoopSettings {
  readonly systemPrompt: (context: AssembleContext) => string | Promise<string>;
  readonly maxSteps: number;
  /** The most tool calls of one answer that run at once. */
  readonly toolConcurrency: number;
  /** Decides each tool call before it runs, when given. */
  readonly approve: ToolApprover | undefined;
  readonly retry: RetryPolicy;
  readonly compaction: CompactionOptions | undefined;
}

/**
 * What one loop instance remembers between its requests: the explicit selection waiting for the
 * next request, whether it wrote a header yet, and its request projection of the log.
 */
export class LoopInstance {
  #selection: LlmCallConfig | undefined;
  #selectionVersion = 0;
  #fold: RequestFold = emptyRequestFold;
  #folded = 0;
  /** Whether this instance has logged a header snapshot. */
  wroteHeader = false;
  /** The surface generation of this instance's previous request (-1 before the first). */
  generationAtLastRequest = -1;
  /** Validates and freezes this instance's requests, each one's new messages only. */
  readonly freezer = new RequestFreezer();

  constructor(selection: LlmCallConfig) {
    this.#selection = selection;
  }

  /** Sets the explicit selection for the next request that runs the waterfall. */
  select(selection: LlmCallConfig): void {
    this.#selection = selection;
    this.#selectionVersion++;
  }

  /** The pending explicit selection (if any) and a token to settle it with once a request used it. */
  pendingSelection(): { readonly selection: LlmCallConfig | undefined; readonly version: number } {
    return { selection: this.#selection, version: this.#selectionVersion };
  }

  /** Drops the pending selection a dispatched request used, unless a newer one was selected meanwhile. */
  settleSelection(version: number): void {
    if (version === this.#selectionVersion) this.#selection = undefined;
  }

  /**
   * Folds the log exactly through `seq`, which must be a `request/dispatch`, and returns what that
   * request contains: the same projection `reconstructRequests` folds over a reloaded log.
   */
  dispatchAt(log: EventLog, seq: number): Dispatch {
    for (; this.#folded <= seq; this.#folded++) this.#fold = foldRequestEvent(this.#fold, log.get(this.#folded)!);
    const dispatch = this.#fold.dispatch;
    if (dispatch?.dispatchSeq !== seq) throw new AgentError("AGENT_RECONSTRUCTION", `seq ${seq} is not the dispatch just folded`);
    return dispatch;
  }
}

/** Everything the loop's free functions work with; the `Agent` owns it. */
export interface Loop {
  readonly log: EventLog;
  readonly surface: SurfaceManager;
  readonly runtime: LlmRuntime;
  readonly tools: ToolRegistry;
  readonly inbox: Inbox;
  readonly hooks: Hooks;
  readonly settings: LoopSettings;
  readonly instance: LoopInstance;
}
