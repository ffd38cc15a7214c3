import { describeIssues } from "dsh-base";
import type { DeepReadonly, ToolSchema, UserContent } from "dsh-llm";
import type { ChildSession } from "dsh-surface";
import { toolSchemaSchema } from "dsh-llm/schemas";
import { z } from "zod";
import { AgentError, ToolError } from "./errors.js";
import type { ToolProgress } from "./listeners.js";
import type { SubagentOptions } from "./subagent.js";

/** What a tool sees while it runs. */
export interface ToolContext {
  readonly callId: string;
  /** Where the call sits: its turn and step, and its position among the answer's tool calls (from 0). */
  readonly turn: number;
  readonly step: number;
  readonly index: number;
  /** The seq of the logged answer that made the call (the loop always gives it). */
  readonly answerSeq?: number;
  readonly signal: AbortSignal;
  /** Reports how far the call has come, to the turn's `onToolEvent` listener (never to the model). */
  readonly reportProgress?: (update: ToolProgress) => void;
}

/** Model-visible content: plain text, or text and image blocks. */
export type ContentInput = string | readonly DeepReadonly<UserContent>[];

/** What a tool returns: text, or content with an error flag and context for a later request. */
export type ToolOutput =
  | string
  | {
      readonly content: ContentInput;
      readonly isError?: boolean;
      /** Context queued in the inbox; it reaches the model in the next step's request. */
      readonly additionalContexts?: readonly ContentInput[];
      /** The child session the call ran (a subagent), logged on its result; never model-visible. */
      readonly child?: ChildSession;
    };

/** The outcome of one call, ready to be logged as a `tool/result`. */
export interface ToolOutcome {
  readonly content: readonly DeepReadonly<UserContent>[];
  readonly isError: boolean;
  readonly additionalContexts: readonly ContentInput[];
  readonly child?: ChildSession;
}

/** A tool the loop can offer: its schema as the model sees it, and how to invoke it from raw arguments. */
export interface AgentTool {
  readonly schema: ToolSchema;
  /** Whether its calls must run alone, never beside another call of the same answer (default: they may run in parallel). */
  readonly runsAlone?: boolean;
  /**
   * False for a tool whose call must not run twice (it pays, sends, deletes): a durable turn logs
   * its intent before it runs and never runs it again blindly after a crash (default true).
   */
  readonly safeToRerun?: boolean;
  invoke(rawArguments: string, context: ToolContext): Promise<ToolOutcome>;
}

/** A tool `subagentTool` made: the agent its calls run is readable, so a durable engine can run a call's turn as a workflow of its own. */
export interface SubagentTool extends AgentTool {
  readonly subagent: SubagentOptions;
}

/** Whether `tool` is a {@link SubagentTool}. */
export function isSubagentTool(tool: AgentTool | undefined): tool is SubagentTool {
  return tool !== undefined && "subagent" in tool && tool.subagent !== undefined;
}

/** Turns content input into content blocks. */
export function toContent(input: ContentInput): DeepReadonly<UserContent>[] {
  return typeof input === "string" ? [{ type: "text", text: input }] : [...input];
}

/** The `child` field of a call's logged result: the session a subagent call ran, when it ran one. */
export function childOf(outcome: ToolOutcome): { readonly child?: ChildSession } {
  return outcome.child === undefined ? {} : { child: outcome.child };
}

/** The error result the model receives for a failed call: the code, then the message. */
export function toolErrorOutcome(error: ToolError): ToolOutcome {
  return { content: [{ type: "text", text: `Error [${error.code}]: ${error.message}` }], isError: true, additionalContexts: [] };
}

/** JSON Schema of a zod schema as tools are offered: deterministic, without the `$schema` marker. */
function parametersOf(schema: z.ZodType): Record<string, z.core.util.JSONType> {
  const { $schema: _marker, ...parameters } = z.toJSONSchema(schema, { io: "input" }) as Record<string, z.core.util.JSONType>;
  return parameters;
}

/**
 * Defines a tool from a zod schema. Arguments are parsed from the model's raw JSON and validated;
 * bad JSON, invalid arguments and thrown errors become error results with stable codes.
 */
export function defineTool<Schema extends z.ZodType>(definition: {
  readonly name: string;
  readonly description: string;
  readonly parameters: Schema;
  /** Its calls run alone, never beside another call of the same answer (a tool with side effects on shared state). */
  readonly runsAlone?: boolean;
  /** False when a call must not run twice: a durable turn logs its intent first and never reruns it blindly. */
  readonly safeToRerun?: boolean;
  execute(args: z.output<Schema>, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}): AgentTool {
  const parsedSchema = toolSchemaSchema.safeParse({
    name: definition.name,
    description: definition.description,
    parameters: parametersOf(definition.parameters),
  });
  if (!parsedSchema.success) {
    throw new AgentError("AGENT_INVALID_OPTIONS", `invalid tool ${definition.name}: ${describeIssues(parsedSchema.error.issues)}`);
  }
  const schema = parsedSchema.data;
  return {
    schema,
    ...(definition.runsAlone === true ? { runsAlone: true } : {}),
    ...(definition.safeToRerun === false ? { safeToRerun: false } : {}),
    async invoke(rawArguments, context) {
      let json: unknown;
      try {
        json = rawArguments.trim() === "" ? {} : JSON.parse(rawArguments);
      } catch (cause) {
        return toolErrorOutcome(new ToolError("TOOL_INVALID_JSON", `arguments are not valid JSON: ${(cause as Error).message}`));
      }
      const args = definition.parameters.safeParse(json);
      if (!args.success) {
        return toolErrorOutcome(new ToolError("TOOL_INVALID_ARGUMENTS", describeIssues(args.error.issues)));
      }
      try {
        const output = await definition.execute(args.data, context);
        if (typeof output === "string") return { content: toContent(output), isError: false, additionalContexts: [] };
        return {
          content: toContent(output.content),
          isError: output.isError ?? false,
          additionalContexts: output.additionalContexts ?? [],
          ...(output.child === undefined ? {} : { child: output.child }),
        };
      } catch (error) {
        if (error instanceof ToolError) return toolErrorOutcome(error);
        if (context.signal.aborted) return toolErrorOutcome(new ToolError("TOOL_ABORTED", "the call was aborted"));
        const message = error instanceof Error ? error.message : String(error);
        return toolErrorOutcome(new ToolError("TOOL_FAILED", message));
      }
    },
  };
}

/** The tools offered to the model, in registration order; assembled afresh at every step. */
export class ToolRegistry {
  readonly #tools = new Map<string, AgentTool>();

  constructor(tools: readonly AgentTool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; names are unique. */
  register(tool: AgentTool): this {
    if (this.#tools.has(tool.schema.name)) {
      throw new AgentError("AGENT_INVALID_OPTIONS", `a tool named ${tool.schema.name} is already registered`);
    }
    this.#tools.set(tool.schema.name, tool);
    return this;
  }

  /** Removes a tool; later steps no longer offer it. */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The tool named `name`, if registered. */
  get(name: string): AgentTool | undefined {
    return this.#tools.get(name);
  }

  /** The registered tools, in registration order. */
  list(): AgentTool[] {
    return [...this.#tools.values()];
  }
}
