import { ToolRegistry, subagentTool, type AgentTool } from "dsh-agent";
import type { LlmCallConfig } from "dsh-llm";
import type { SessionStore } from "dsh-log";
import type { CliIo } from "./io.js";
import { ownFiles, type OwnFileFlags } from "./own-files.js";
import type { ProviderSession } from "./session-runner.js";
import { workspaceTools } from "dsh-workspace-tools";

/** The name of the tool `--subagents` gives the agent (the embedded simulator delegates through it). */
export const DELEGATE_TOOL = "delegate";

/** What the subagent is told it is. */
const SUBAGENT_PROMPT = "You are a subagent: you get one self-contained task, work on it with the file tools, and report what you found in a few sentences.";

/** The tools a CLI agent works with: the workspace's files (dsh's own out of their view) and the tools of the MCP servers the flags added. */
export function agentTools(provider: Pick<ProviderSession, "mcp">, values: OwnFileFlags, io: CliIo): ToolRegistry {
  const tools = new ToolRegistry(workspaceTools(io.cwd, { hidden: ownFiles(values, io) }));
  provider.mcp?.attach(tools);
  return tools;
}

/**
 * `--subagents`: the `delegate` tool, which runs each task as one turn of a subagent with the same
 * model, the workspace and MCP tools (but no `delegate` of its own) and the step limit, in a session
 * of the parent's store linked to the parent.
 */
export function delegateTool(parent: { readonly sessionId: string; readonly store: SessionStore }, provider: ProviderSession, config: LlmCallConfig, values: OwnFileFlags & { readonly maxSteps: number }, io: CliIo): AgentTool {
  return subagentTool({
    name: DELEGATE_TOOL,
    description: "Hands a self-contained task to a subagent, which works on it with the same file tools in a session of its own and reports back. Calls in one answer run at once.",
    store: parent.store,
    parentSessionId: parent.sessionId,
    runtime: provider.runtime,
    config,
    systemPrompt: SUBAGENT_PROMPT,
    tools: agentTools(provider, values, io),
    maxSteps: values.maxSteps,
  });
}
