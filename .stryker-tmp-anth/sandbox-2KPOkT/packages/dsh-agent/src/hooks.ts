import { describeIssues } from "dsh-base";
import type { DeepReadonly, LlmCallConfig, Message, ToolSchema } from "dsh-llm";
import { userContentSchema } from "dsh-llm/schemas";
import { z } from "zod";
import { frozenConfig } from "./config.js";
import { AgentError } from "./errors.js";
import type { InboxItem } from "./inbox.js";
import { toContent, type ContentInput } from "./tools.js";

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
 * A listener's decision: `reject` opens no step (the batch goes back to the inbox, the reason is
 * logged and the turn ends `blocked`); `enter` may add messages that must reach this very request
 * and may declare that the step starts a request series.
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

/** The listeners of one agent. */
export interface Hooks {
  readonly preStep: Set<PreStepListener>;
  readonly request: Set<RequestListener>;
}

/** What the pre-step listeners settled on together. */
export type PreStepOutcome =
  | { readonly action: "reject"; readonly reason: string | undefined }
  | { readonly action: "enter"; readonly messages: readonly InboxItem[]; readonly startsRequestSeries: boolean };

const hookMessageSchema = z.array(userContentSchema).min(1);

function hookMessage(content: ContentInput): InboxItem {
  const parsed = hookMessageSchema.safeParse(typeof content === "string" || Array.isArray(content) ? toContent(content) : content);
  if (!parsed.success) {
    throw new AgentError("AGENT_INVALID_HOOK_RESULT", `agent/pre-step returned an invalid message: ${describeIssues(parsed.error.issues)}`);
  }
  return { content: parsed.data, source: "pre-step" };
}

/** Runs the pre-step listeners in order: the first `reject` wins; `enter` messages accumulate, validated. */
export async function decidePreStep(listeners: Iterable<PreStepListener>, context: PreStepContext): Promise<PreStepOutcome> {
  const messages: InboxItem[] = [];
  let startsRequestSeries = false;
  for (const listener of listeners) {
    const decision = await listener(context);
    if (decision === undefined) continue;
    if (decision.action === "reject") {
      const reason = decision.reason;
      if (reason !== undefined && (typeof reason !== "string" || reason === "")) {
        throw new AgentError("AGENT_INVALID_HOOK_RESULT", "agent/pre-step reject reason must be a non-empty string");
      }
      return { action: "reject", reason };
    }
    if (decision.action !== "enter") throw new AgentError("AGENT_INVALID_HOOK_RESULT", "agent/pre-step must return reject, enter or nothing");
    for (const content of decision.messages ?? []) messages.push(hookMessage(content));
    startsRequestSeries ||= decision.startsRequestSeries === true;
  }
  return { action: "enter", messages, startsRequestSeries };
}

/** Runs the `agent/request` waterfall over a frozen `seed`; each stage may return a replacement, validated. */
export async function settleSelection(
  listeners: Iterable<RequestListener>,
  seed: LlmCallConfig,
  context: { readonly turn: number; readonly step: number },
): Promise<LlmCallConfig> {
  let selection = seed;
  for (const listener of listeners) {
    const replaced = await listener(selection, context);
    if (replaced !== undefined) selection = frozenConfig(replaced, "agent/request returned an invalid config", "AGENT_INVALID_HOOK_RESULT");
  }
  return selection;
}
