import { createAgentRegistry, isSubagentTool, sessionParentEvent, subagentParentOf, subagentTurns, ToolRegistry, type AgentTool, type SessionParent } from "dsh-agent";
import type { EventLog } from "dsh-log";
import type { PostgresStore } from "dsh-store-postgres";
import type { TurnAgent, TurnArgs } from "./durable-turns.js";

/** What {@link DurableTurnsOptions.agent} is given beside the session id. */
export interface AgentContext {
  /** The sessions' store, open: where a `subagentTool` creates its child sessions. */
  readonly store: PostgresStore;
}

type AgentOf = (sessionId: string, context: AgentContext) => TurnAgent | Promise<TurnAgent>;

function toolNamed(tools: TurnAgent["tools"], name: string): AgentTool | undefined {
  return tools instanceof ToolRegistry ? tools.get(name) : tools?.find((tool) => tool.schema.name === name);
}

/**
 * The agent of a session's units: for a subagent's session (`parent`, the call its first event
 * names), the agent of the parent's subagent tool of that name; for any other, `agent`'s.
 */
export async function agentOf(parent: SessionParent | undefined, sessionId: string, store: PostgresStore, agent: AgentOf): Promise<TurnAgent> {
  if (parent !== undefined) {
    const tool = toolNamed((await agent(parent.sessionId, { store })).tools, parent.toolName);
    if (isSubagentTool(tool)) {
      const { runtime, systemPrompt, tools, maxSteps } = tool.subagent;
      return { runtime, systemPrompt, ...(tools === undefined ? {} : { tools }), ...(maxSteps === undefined ? {} : { maxSteps }) };
    }
  }
  return agent(sessionId, { store });
}

/** The call a session's log names in its first event, when a subagent's call made it. */
export function parentIn(log: EventLog): SessionParent | undefined {
  const first = log.get(0);
  return first !== undefined && sessionParentEvent.is(first) ? first.data : undefined;
}

/**
 * The workflow input of each child turn the session's open answer still needs, by the parent's call
 * id: JSON, as a recorded step returns it. An agent without a subagent tool needs none, and its
 * session's log is not read for them (one line is, to tell whose agent it is).
 */
export async function childTurnArgs(store: PostgresStore, sessionId: string, agent: AgentOf): Promise<[string, TurnArgs][]> {
  const { tools } = await agentOf(await subagentParentOf(store, sessionId), sessionId, store, agent);
  const offered = tools instanceof ToolRegistry ? tools.list() : (tools ?? []);
  if (!offered.some((tool) => isSubagentTool(tool))) return [];
  const { log } = await store.read(sessionId, createAgentRegistry());
  const turns = await subagentTurns(log, offered);
  return turns.map(({ callId, sessionId: child, turn, head, task, config, systemPrompt }) => [callId, { sessionId: child, turn, head, input: task, config, systemPrompt }]);
}
