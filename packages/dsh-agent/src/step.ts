import type { TurnListeners } from "./listeners.js";
import { userMessageEvent, type SurfaceManager } from "dsh-surface";
import { finishStep, type StepOutcome } from "./answer.js";
import { generateWithRetries, StepFailure } from "./attempts.js";
import { dispatchRequest } from "./dispatch.js";
import { AgentError } from "./errors.js";
import { stepEndEvent, stepRejectEvent, stepStartEvent, type StepEndReason } from "./events.js";
import { decidePreStep } from "./hooks.js";
import type { Loop } from "./loop.js";
import { loggedError } from "./logged-error.js";
import { quarantineProposal } from "./maintenance.js";
import { closeOpenCalls } from "./recovery.js";
import type { AgentTool } from "./tools.js";

/** Refuses a surface whose node 0 is not the system prompt: such a log can never gain one (see the agent notes). */
export function assertPromptNode(surface: SurfaceManager): void {
  const first = surface.state.nodes.at(0);
  if (first !== undefined && first.type !== "system/message") {
    throw new AgentError(
      "AGENT_INVALID_LOG",
      `the surface starts with ${first.type} at seq ${first.seq}; an agent needs the system prompt at surface node 0`,
    );
  }
}

/** What an opened step offers the model. */
export interface OpenedStep {
  readonly tools: readonly AgentTool[];
  readonly startsRequestSeries: boolean;
}

/**
 * Claims the inbox batch, assembles prompt and tools, runs `agent/pre-step` and logs what enters
 * the step. The batch is either logged or back in the inbox: a rejection or any failure restores it.
 */
export async function openStep(loop: Loop, turn: number, step: number): Promise<OpenedStep | "blocked"> {
  const batch = loop.inbox.claim();
  let restored = false;
  const restore = () => {
    if (!restored) loop.inbox.restore(batch);
    restored = true;
  };
  try {
    assertPromptNode(loop.surface);
    const systemPrompt = await loop.settings.systemPrompt({ turn, step });
    if (typeof systemPrompt !== "string") throw new AgentError("AGENT_INVALID_OPTIONS", "systemPrompt must render a string");
    const tools = loop.tools.list();
    const schemas = tools.map((tool) => tool.schema);
    const context = { turn, step, batch, systemPrompt, tools: schemas, messages: loop.surface.deriveMessages() };
    const decision = await decidePreStep(loop.hooks.preStep, context);
    if (decision.action === "reject") {
      restore();
      await loop.log.append(stepRejectEvent.input(decision.reason === undefined ? { turn, step } : { turn, step, reason: decision.reason }));
      return "blocked";
    }
    const promptChange = loop.surface.systemPromptInput(systemPrompt);
    await loop.log.append([
      stepStartEvent.input(decision.startsRequestSeries ? { turn, step, startsRequestSeries: true } : { turn, step }),
      ...(promptChange === undefined ? [] : [promptChange]),
      ...[...batch, ...decision.messages].map((item) => userMessageEvent.input({ content: item.content, source: item.source })),
    ]);
    return { tools, startsRequestSeries: decision.startsRequestSeries };
  } catch (error) {
    restore();
    throw error;
  }
}

/**
 * Runs one step: opens it, dispatches its request (built from the log at the dispatch boundary),
 * streams the answer with retries, runs the tool calls and closes the step. A failure is logged
 * with the step's end and rethrown as a {@link StepFailure}; an abort ends the step `aborted`.
 */
export async function runStep(
  loop: Loop,
  turn: number,
  step: number,
  signal: AbortSignal,
  listeners: TurnListeners,
): Promise<StepOutcome | "blocked"> {
  const opened = await openStep(loop, turn, step);
  if (opened === "blocked") return "blocked";
  // Until the first attempt, nothing was sent; after an answer, something was.
  let sent = false;
  try {
    const schemas = opened.tools.map((tool) => tool.schema);
    const request = await dispatchRequest(loop, { turn, step, tools: schemas, startsRequestSeries: opened.startsRequestSeries, signal });
    const result = await generateWithRetries(loop, request, { turn, step, signal, onChunk: listeners.onChunk });
    sent = true;
    return await finishStep(loop, { turn, step, signal, onToolEvent: listeners.onToolEvent }, result, opened.tools);
  } catch (error) {
    const { reason, failure } = await endFailedStep(loop, { turn, step, signal }, error, sent);
    if (reason === "aborted") return { reason, continueTurn: false, text: "" };
    throw new StepFailure(reason, failure);
  }
}

/**
 * Logs the end of a step that failed or was aborted: a quarantine proposal when an attachment was
 * unreadable, error results for its open calls, and its `step/end` (marked `unsent` when no attempt
 * could have sent the request). Returns the reason and the failure itself.
 */
export async function endFailedStep(
  loop: Pick<Loop, "log" | "surface">,
  at: { readonly turn: number; readonly step: number; readonly signal: AbortSignal },
  error: unknown,
  sent: boolean,
): Promise<{ readonly reason: StepEndReason; readonly failure: unknown }> {
  const { turn, step } = at;
  const reason: StepEndReason = error instanceof StepFailure ? error.reason : at.signal.aborted ? "aborted" : "error";
  const failure = error instanceof StepFailure ? error.failure : error;
  const unsent = !(sent || (error instanceof StepFailure && error.sent));
  const end = reason === "aborted" ? { turn, step, reason } : { turn, step, reason, error: loggedError(failure) };
  await loop.log.append([
    ...quarantineProposal(loop.surface, failure),
    ...closeOpenCalls(loop.surface, reason === "aborted" ? "not run: the turn was aborted" : "not run: the step failed"),
    stepEndEvent.input(unsent ? { ...end, unsent: true } : end),
  ]);
  return { reason, failure };
}
