import type { LlmCallConfig, LlmRuntime } from "dsh-llm";
import { verifyLines, type HeadSigning, type SessionStore, type StoredLine, type StoredLines } from "dsh-log";
import type { ChildSession } from "dsh-surface";
import { z } from "zod";
import { Agent } from "./agent.js";
import { ToolError } from "./errors.js";
import { createAgentRegistry } from "./register.js";
import { sessionParentEvent } from "./session-parent.js";
import { defineTool, type AgentTool, type ToolContext, type ToolOutput, type ToolRegistry } from "./tools.js";

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

const taskSchema = z.object({ task: z.string().min(1).describe("What the subagent is to do, with everything it needs to know: it sees nothing else of this conversation.") });

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

/** Runs one call: a new child session in the parent's store, its first event naming the parent, one turn of the child's agent on the task. */
async function runChild(options: SubagentOptions, task: string, context: ToolContext): Promise<ToolOutput> {
  if (context.answerSeq === undefined) throw new ToolError("TOOL_FAILED", "a subagent runs inside an agent's turn, which tells it the answer that called it");
  const { store, parentSessionId, runtime, config, systemPrompt, tools, maxSteps, signing } = options;
  const { info, log } = await store.create({ registry: createAgentRegistry(), ...(signing === undefined ? {} : { signing }) });
  let text: string;
  let isError: boolean;
  try {
    await log.append(sessionParentEvent.input({ sessionId: parentSessionId, answerSeq: context.answerSeq, callId: context.callId, toolName: options.name }));
    const agent = new Agent({ log, runtime, config, systemPrompt, ...(tools === undefined ? {} : { tools }), ...(maxSteps === undefined ? {} : { maxSteps }) });
    let progress = 0;
    const turn = await agent.run(task, {
      signal: context.signal,
      onChunk: (chunk) => {
        if (chunk.type === "text-delta") context.reportProgress?.({ progress: (progress += chunk.text.length), message: chunk.text });
      },
    });
    isError = turn.reason !== "completed";
    text = turn.text === "" ? `(the subagent ended its turn ${turn.reason} without an answer)` : turn.text;
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
export function subagentTool(options: SubagentOptions): AgentTool {
  return defineTool({ name: options.name, description: options.description, parameters: taskSchema, execute: ({ task }, context) => runChild(options, task, context) });
}
