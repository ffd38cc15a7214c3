import type { LlmCallConfig, ToolCallBlock } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { SurfaceManager } from "dsh-surface";
import { loopAdmission } from "./loop-rule.js";
import { lastAnswer } from "./answer.js";
import { childSession, endedTurn, taskSchema } from "./subagent.js";
import { isSubagentTool, ToolRegistry, type AgentTool } from "./tools.js";

/** The turn a subagent call of the open answer still has to run in its child session: what a durable engine runs as a workflow of its own. */
export interface SubagentTurn {
  /** The parent's call. */
  readonly callId: string;
  /** The child session, and where its turn starts: its number and the log's length then. */
  readonly sessionId: string;
  readonly turn: number;
  readonly head: number;
  /** The task, as the turn's input; the child's model and settings and its system prompt. */
  readonly task: string;
  readonly config: LlmCallConfig;
  readonly systemPrompt: string;
}

/** The call's task, when its arguments are a valid task (else the call's own run reports them). */
function taskOf(call: ToolCallBlock): string | undefined {
  try {
    const parsed = taskSchema.safeParse(JSON.parse(call.arguments));
    return parsed.success ? parsed.data.task : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The child turns the open answer's subagent calls still need, for an engine to run them at once
 * before each call's own unit: for every call of a {@link subagentTool} without a result and with
 * valid arguments, its child session (created, naming the call, when new) and the turn to run there.
 * A call whose child already ended its turn needs none: its unit returns that turn's answer.
 */
export async function subagentTurns(log: EventLog, tools: ToolRegistry | readonly AgentTool[]): Promise<SubagentTurn[]> {
  const registry = tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
  const open = new SurfaceManager(log).state.openCalls;
  const answer = lastAnswer(log);
  if (answer === undefined) return [];
  const turns: SubagentTurn[] = [];
  for (const call of answer.calls) {
    const tool = registry.get(call.name);
    const task = taskOf(call);
    if (!isSubagentTool(tool) || task === undefined || open.find(call.callId) === undefined) continue;
    const options = tool.subagent;
    const { info, log: child } = await childSession(options, { sessionId: options.parentSessionId, answerSeq: answer.seq, callId: call.callId, toolName: options.name });
    try {
      if (endedTurn(child) !== undefined) continue;
      const state = child.ruleState(loopAdmission);
      turns.push({ callId: call.callId, sessionId: info.sessionId, turn: state.openTurn ?? state.turns, head: child.length, task, config: options.config, systemPrompt: options.systemPrompt });
    } finally {
      await child.close();
    }
  }
  return turns;
}
