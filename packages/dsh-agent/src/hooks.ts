import type { DeepReadonly, LlmCallConfig, Message, ToolSchema } from "dsh-llm";
import type { InboxItem } from "./inbox.js";
import type { ContentInput } from "./tools.js";

/** What `agent/pre-step` listeners see before a step opens. */
export interface PreStepContext {
  readonly turn: number;
  readonly step: number;
  /** The claimed inbox batch that will enter this step. */
  readonly batch: readonly InboxItem[];
  /** The system prompt rendered for this step. */
  readonly systemPrompt: string;
  /** The tools assembled for this step. */
  readonly tools: readonly ToolSchema[];
  /** The current surface messages (shared, frozen). */
  readonly messages: readonly Message[];
}

/**
 * A listener's decision: `reject` opens no step (the batch goes back to the inbox and the turn
 * ends `blocked`); `enter` may add messages that must reach this very request and may declare that
 * the step starts a request series.
 */
export type PreStepDecision =
  | { readonly action: "reject"; readonly reason?: string }
  | { readonly action: "enter"; readonly messages?: readonly ContentInput[]; readonly startsRequestSeries?: boolean };

/** An `agent/pre-step` listener; returning nothing means enter without additions. */
export type PreStepListener = (context: PreStepContext) => PreStepDecision | void | Promise<PreStepDecision | void>;

/**
 * An `agent/request` waterfall stage: it receives the frozen call-config seed and may return a
 * replacement. It cannot reach messages or tools.
 */
export type RequestListener = (
  seed: DeepReadonly<LlmCallConfig>,
  context: { readonly turn: number; readonly step: number },
) => LlmCallConfig | void | Promise<LlmCallConfig | void>;
