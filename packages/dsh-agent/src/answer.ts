import type { DeepReadonly, GenerateResult, TokenUsage, ToolCallBlock } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { assistantMessageEvent, toolResultEvent } from "dsh-surface";
import { ToolError } from "./errors.js";
import { stepEndEvent, type StepEndReason } from "./events.js";
import type { Loop } from "./loop.js";
import { approveCalls } from "./approval.js";
import { tell, type ToolEvent, type ToolProgress } from "./listeners.js";
import { startCalls } from "./tool-runs.js";
import { childOf, toolErrorOutcome, type AgentTool, type ToolContext, type ToolOutcome } from "./tools.js";

/** How a step ended and whether the turn goes on. */
export interface StepOutcome {
  readonly reason: StepEndReason;
  readonly continueTurn: boolean;
  readonly text: string;
  /** What the provider reported for the step's answer, if it did. */
  readonly usage?: TokenUsage | undefined;
}

/** The last answer's tool calls and its seq, when the log has an answer. */
export function lastAnswer(log: EventLog): { readonly seq: number; readonly calls: readonly ToolCallBlock[] } | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (assistantMessageEvent.is(event)) return { seq, calls: event.data.content.filter((block): block is ToolCallBlock => block.type === "tool-call") };
  }
  return undefined;
}

/** Runs one call with the tool of its name (an error result when none is offered, or the turn was aborted). */
export async function invoke(call: ToolCallBlock, tools: readonly AgentTool[], context: ToolContext): Promise<ToolOutcome> {
  if (context.signal.aborted) return toolErrorOutcome(new ToolError("TOOL_ABORTED", "not run: the turn was aborted"));
  const tool = tools.find((candidate) => candidate.schema.name === call.name);
  if (tool === undefined) return toolErrorOutcome(new ToolError("TOOL_UNKNOWN", `no tool named ${call.name} is offered`));
  return tool.invoke(call.arguments, context);
}

/**
 * Logs the answer, runs its tool calls (at most `toolConcurrency` at once; a tool marked `runsAlone`
 * alone), logs their results in the model's order whatever order they finish in, so the rebuilt
 * request and the cache prefix never depend on timing, queues their `additionalContexts` in the
 * inbox, and closes the step with usage.
 */
export async function finishStep(
  loop: Loop,
  at: { readonly turn: number; readonly step: number; readonly signal: AbortSignal; readonly onToolEvent?: ((event: ToolEvent) => void) | undefined },
  result: GenerateResult,
  tools: readonly AgentTool[],
): Promise<StepOutcome> {
  const { turn, step, signal } = at;
  const [answer] = await loop.log.append(assistantMessageEvent.input({ content: result.content, source: "model" }));
  const calls = result.content.filter((block): block is ToolCallBlock => block.type === "tool-call");
  const truncated = result.finishReason === "length";
  const approve = loop.settings.approve;
  const approvals = truncated || approve === undefined ? undefined : await approveCalls(loop, approve, calls, at);
  const scheduled = calls.map((call) => ({ call, alone: tools.find((tool) => tool.schema.name === call.name)?.runsAlone === true }));
  const outcomes = startCalls(scheduled, loop.settings.toolConcurrency, (call) => {
    const index = calls.indexOf(call);
    const approval = approvals?.[index];
    if (truncated) return Promise.resolve(toolErrorOutcome(new ToolError("TOOL_NOT_RUN", "not run: the answer was cut off at the token limit")));
    if (approval !== undefined && !approval.allowed) {
      return Promise.resolve(toolErrorOutcome(new ToolError("TOOL_DENIED", `not run: denied by ${approval.by}${approval.reason === undefined ? "" : `: ${approval.reason}`}`)));
    }
    const name = call.name;
    const callId = call.callId;
    tell(at.onToolEvent, { type: "start", callId, name, turn, step });
    const reportProgress = (update: ToolProgress) => tell(at.onToolEvent, { type: "progress", callId, name, ...update });
    return invoke(call, tools, { callId, turn, step, index, answerSeq: answer!.seq, signal, reportProgress }).then((outcome) => {
      tell(at.onToolEvent, { type: "finish", callId, name, isError: outcome.isError });
      return outcome;
    });
  });
  for (const [index, call] of calls.entries()) {
    const outcome = await outcomes[index]!;
    await loop.log.append(
      toolResultEvent.input({ callId: call.callId, toolName: call.name, content: outcome.content, isError: outcome.isError, source: "tool", ...childOf(outcome) }),
    );
    for (const context of outcome.additionalContexts) loop.inbox.push(context, "tool-context");
  }
  const reason: StepEndReason = signal.aborted ? "aborted" : truncated ? "max-tokens" : "completed";
  await loop.log.append(stepEndEvent.input({ turn, step, reason, ...answerFacts(result) }));
  return { reason, continueTurn: calls.length > 0, text: answerText(result.content), usage: result.usage };
}

/** What a step's end records of its answer: the finish reason, and the usage, response id and cache verdict the provider gave. */
export interface AnswerFacts {
  readonly finishReason: GenerateResult["finishReason"];
  readonly usage?: TokenUsage;
  readonly responseId?: string;
  readonly cacheDiagnosis?: NonNullable<GenerateResult["cacheDiagnosis"]>;
}

/** The facts of `result` a `step/end` records, without absent fields. */
export function answerFacts(result: GenerateResult): AnswerFacts {
  return {
    finishReason: result.finishReason,
    ...(result.usage === undefined ? {} : { usage: result.usage }),
    ...(result.responseId === undefined ? {} : { responseId: result.responseId }),
    ...(result.cacheDiagnosis === undefined ? {} : { cacheDiagnosis: result.cacheDiagnosis }),
  };
}

/** The text blocks of an answer, joined. */
export function answerText(content: readonly DeepReadonly<GenerateResult["content"][number]>[]): string {
  return content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}
