import type { LlmCallConfig, LlmRuntime } from "dsh-llm";
import { LogError, verifyLines, type EventLog, type HeadSigning, type SessionStore, type StoredLine, type StoredLines, type StoredSession } from "dsh-log";
import { assistantMessageEvent, type ChildSession } from "dsh-surface";
import { z } from "zod";
import { Agent } from "./agent.js";
import { answerText } from "./answer.js";
import { sha256Hex } from "./durable-receipt.js";
import { turnEndEvent, turnStartEvent, type TurnEndReason } from "./events.js";
import { loopAdmission } from "./loop-rule.js";
import { ToolError } from "./errors.js";
import { createAgentRegistry } from "./register.js";
import { sessionParentEvent, type SessionParent } from "./session-parent.js";
import { defineTool, type AgentTool, type SubagentTool, type ToolContext, type ToolOutput, type ToolRegistry } from "./tools.js";

/** Options of {@link subagentTool}: the tool the parent sees, and the agent each call runs in a child session of its own. */
export interface SubagentOptions {
  /** The tool's name and description, as the parent's model sees them. */
  readonly name: string;
  readonly description: string;
  /** The store the parent's session is in: each call's child session is created there. */
  readonly store: SessionStore;
  /** The parent's session id, which each child records. */
  readonly parentSessionId: string;
  readonly runtime: LlmRuntime;
  /** The child's own model and settings, system prompt, tools and step limit. */
  readonly config: LlmCallConfig;
  readonly systemPrompt: string;
  readonly tools?: ToolRegistry | readonly AgentTool[];
  readonly maxSteps?: number;
  /** Signs the child's chain heads, as the parent's are. */
  readonly signing?: HeadSigning;
}

export const taskSchema = z.object({ task: z.string().min(1).describe("What the subagent is to do, with everything it needs to know: it sees nothing else of this conversation.") });

/** The chain head of a session's first `events` lines, recomputed from its identity; `undefined` when the lines do not hold a chain. */
export async function chainHeadAt(stored: StoredLines, events: number): Promise<string | undefined> {
  async function* first(lines: StoredLines["lines"]): AsyncIterable<StoredLine> {
    let taken = 0;
    if (taken === events) return;
    for await (const line of lines) {
      yield line;
      if (++taken === events) return;
    }
  }
  const report = await verifyLines({ info: stored.info, chained: stored.chained, lines: first(stored.lines) });
  return report.status === "intact" && report.events === events ? report.head : undefined;
}

/** The child's link as the parent's result records it: its id, its events, and its chain's head over them. */
async function linkOf(store: SessionStore, sessionId: string): Promise<ChildSession> {
  const stored = await store.readLines(sessionId);
  const report = await verifyLines(stored);
  if (report.head === undefined) throw new ToolError("TOOL_FAILED", `the subagent's session ${sessionId} holds no hash chain (${report.status}): it cannot be linked`);
  return { sessionId, events: report.events, head: report.head };
}

/**
 * The id of the session a subagent call runs in, derived from the parent session, the seq of the
 * answer that made the call and the call's id: a call run again (a durable unit after a crash, a
 * resumed turn) continues the same session instead of starting a second one.
 */
export async function subagentSessionId(parentSessionId: string, answerSeq: number, callId: string): Promise<string> {
  const hex = await sha256Hex(`${parentSessionId}\n${answerSeq}\n${callId}`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The call's child session: opened when a run of this call made it before, else created; its first event names the parent and the call. */
export async function childSession(options: SubagentOptions, parent: SessionParent): Promise<StoredSession> {
  const { store, signing } = options;
  const sessionId = await subagentSessionId(parent.sessionId, parent.answerSeq, parent.callId);
  const settings = { registry: createAgentRegistry(), ...(signing === undefined ? {} : { signing }) };
  const failed = (error: unknown, code: string) => error instanceof LogError && error.code === code;
  let session: StoredSession;
  try {
    session = await store.open(sessionId, settings);
  } catch (error) {
    if (!failed(error, "LOG_NOT_FOUND")) throw error;
    // Another run of the call may create it first: then it is opened (and refused while that run writes it).
    session = await store.create({ ...settings, sessionId }).catch((created: unknown) => (failed(created, "LOG_EXISTS") ? store.open(sessionId, settings) : Promise.reject(created)));
  }
  const first = session.log.get(0);
  if (first === undefined) await session.log.append(sessionParentEvent.input(parent));
  else if (!sessionParentEvent.is(first) || JSON.stringify(first.data) !== JSON.stringify(parent)) {
    await session.log.close();
    throw new ToolError("TOOL_FAILED", `session ${sessionId} is not this call's subagent session: its first event does not name call ${parent.callId} of session ${parent.sessionId}`);
  }
  return session;
}

/** How the child's last turn ended and what it answered last, when it ended and nothing was started since (the call returned before, but its result was not logged). */
export function endedTurn(log: EventLog): { readonly reason: TurnEndReason; readonly text: string } | undefined {
  const state = log.ruleState(loopAdmission);
  if (state.openTurn !== undefined || state.turns === 0) return undefined;
  let reason: TurnEndReason | undefined;
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (reason === undefined) reason = turnEndEvent.is(event) ? event.data.reason : undefined;
    else if (turnStartEvent.is(event)) break;
    else if (assistantMessageEvent.is(event)) return { reason, text: answerText(event.data.content) };
  }
  return reason === undefined ? undefined : { reason, text: "" };
}

/** What a call's result says of the child's turn. */
function turnOutput(turn: { readonly reason: TurnEndReason; readonly text: string }): { readonly text: string; readonly isError: boolean } {
  return { isError: turn.reason !== "completed", text: turn.text === "" ? `(the subagent ended its turn ${turn.reason} without an answer)` : turn.text };
}

/** Runs one call: the call's child session (a new one, or the one a run of this call made before), one turn of the child's agent on the task unless its last turn already answered. */
async function runChild(options: SubagentOptions, task: string, context: ToolContext): Promise<ToolOutput> {
  if (context.answerSeq === undefined) throw new ToolError("TOOL_FAILED", "a subagent runs inside an agent's turn, which tells it the answer that called it");
  const { store, parentSessionId, runtime, config, systemPrompt, tools, maxSteps } = options;
  const { info, log } = await childSession(options, { sessionId: parentSessionId, answerSeq: context.answerSeq, callId: context.callId, toolName: options.name });
  let text: string;
  let isError: boolean;
  try {
    const ended = endedTurn(log);
    if (ended !== undefined) ({ text, isError } = turnOutput(ended));
    else {
      const agent = new Agent({ log, runtime, config, systemPrompt, ...(tools === undefined ? {} : { tools }), ...(maxSteps === undefined ? {} : { maxSteps }) });
      let progress = 0;
      const turn = await agent.run(task, {
        signal: context.signal,
        onChunk: (chunk) => {
          if (chunk.type === "text-delta") context.reportProgress?.({ progress: (progress += chunk.text.length), message: chunk.text });
        },
      });
      ({ text, isError } = turnOutput(turn));
    }
  } catch (error) {
    isError = true;
    text = `the subagent failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await log.close();
  }
  return { content: text, isError, child: await linkOf(store, info.sessionId) };
}

/**
 * A tool that hands a task to a subagent: each call runs the subagent's own agent (its prompt, tools,
 * model and limits) for one turn in a new session of the parent's store, whose first event names the
 * parent's session, answer and call; the call's logged result carries the child's id and chain head.
 * Calls of one answer run in parallel like any tool's; the child's text streams as the call's progress.
 */
export function subagentTool(options: SubagentOptions): SubagentTool {
  const tool = defineTool({ name: options.name, description: options.description, parameters: taskSchema, execute: ({ task }, context) => runChild(options, task, context) });
  return { ...tool, subagent: options };
}
