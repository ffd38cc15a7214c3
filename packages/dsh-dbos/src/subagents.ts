import { createAgentRegistry, isSubagentTool, sessionParentEvent, subagentTurns, ToolRegistry, type AgentTool } from "dsh-agent";
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
 * The agent of a session's units: for a subagent's session (its first event names the parent's
 * call), the agent of the parent's subagent tool of that name; for any other, `agent`'s.
 */
export async function agentOf(log: EventLog, sessionId: string, store: PostgresStore, agent: AgentOf): Promise<TurnAgent> {
  const first = log.get(0);
  if (first !== undefined && sessionParentEvent.is(first)) {
    const tool = toolNamed((await agent(first.data.sessionId, { store })).tools, first.data.toolName);
    if (isSubagentTool(tool)) {
      const { runtime, systemPrompt, tools, maxSteps } = tool.subagent;
      return { runtime, systemPrompt, ...(tools === undefined ? {} : { tools }), ...(maxSteps === undefined ? {} : { maxSteps }) };
    }
  }
  return agent(sessionId, { store });
}

/** The workflow input of each child turn the session's open answer still needs, by the parent's call id: JSON, as a recorded step returns it. */
export async function childTurnArgs(store: PostgresStore, sessionId: string, agent: AgentOf): Promise<[string, TurnArgs][]> {
  const { log } = await store.read(sessionId, createAgentRegistry());
  const { tools } = await agentOf(log, sessionId, store, agent);
  const turns = await subagentTurns(log, tools ?? []);
  return turns.map(({ callId, sessionId: child, turn, head, task, config, systemPrompt }) => [callId, { sessionId: child, turn, head, input: task, config, systemPrompt }]);
}
