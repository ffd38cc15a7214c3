import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, toolErrorOutcome, type AgentTool, type ToolContext, type ToolOutcome, type ToolRegistry } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import { describeIssues } from "dsh-base";
import { toolSchemaSchema } from "dsh-llm/schemas";
import { connectServer, listAllTools, serverName, type McpConnection, type McpServerSpec } from "./connection.js";
import { McpError } from "./errors.js";
import { toolOutcome } from "./results.js";

/** Options of {@link connectMcpServers}. */
export interface McpToolsOptions {
  /** Where tool results' images are kept (without one, an image is described in text). */
  readonly attachments?: AttachmentStore;
  /** Tool names already taken (the harness's own tools): a server offering one is refused at start. */
  readonly reservedNames?: readonly string[];
  /** Receives one line for each thing a person should know: a server gone, a call that failed or timed out, a refused list change. */
  readonly onProblem?: (line: string) => void;
}

const DEFAULT_CALL_TIMEOUT_MS = 60_000;

function errorOutcome(code: ConstructorParameters<typeof ToolError>[0], message: string): ToolOutcome {
  return toolErrorOutcome(new ToolError(code, message));
}

/** The schema an MCP tool is offered under: its name (prefixed), description and input schema exactly as the server gave them. */
function schemaOf(connection: McpConnection, tool: Tool): AgentTool["schema"] {
  const parsed = toolSchemaSchema.safeParse({ name: `${connection.spec.prefix ?? ""}${tool.name}`, description: tool.description ?? "", parameters: tool.inputSchema });
  if (!parsed.success) {
    throw new McpError("MCP_INVALID_TOOL", `MCP server ${connection.name} offers tool ${tool.name}, which dsh cannot offer: ${describeIssues(parsed.error.issues)}`);
  }
  return parsed.data;
}

/** Whether a tool's annotations say a second call does no more than the first: it only reads, or it is idempotent. */
function safeToRerunByAnnotations(tool: Tool): boolean {
  return tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true;
}

/** The tools of connected MCP servers, kept in a registry and current with each server's announced list. */
export class McpTools {
  readonly #connections: readonly McpConnection[];
  readonly #options: McpToolsOptions;
  /** The tools each server offers now, by connection index. */
  readonly #offered: AgentTool[][];
  readonly #registries = new Set<ToolRegistry>();
  /** Each server's last refresh, so the next one starts after it. */
  readonly #refreshes: Promise<void>[];
  #closing = false;

  /** @internal Use {@link connectMcpServers}. */
  constructor(connections: readonly McpConnection[], lists: readonly Tool[][], options: McpToolsOptions) {
    this.#connections = connections;
    this.#options = options;
    this.#offered = connections.map((connection, i) => lists[i]!.map((tool) => this.#agentTool(i, tool)));
    this.#refreshes = connections.map(() => Promise.resolve());
    const taken = new Map<string, string>((options.reservedNames ?? []).map((name) => [name, "a built-in tool"]));
    this.#offered.forEach((tools, i) => {
      for (const tool of tools) {
        const owner = taken.get(tool.schema.name);
        if (owner !== undefined) {
          throw new McpError("MCP_NAME_COLLISION", `MCP server ${connections[i]!.name} offers ${tool.schema.name}, as does ${owner}: give one of the servers a prefix`);
        }
        taken.set(tool.schema.name, `MCP server ${connections[i]!.name}`);
      }
    });
  }

  /** The tools offered now, server by server, in each server's order. */
  get tools(): readonly AgentTool[] {
    return this.#offered.flat();
  }

  /**
   * Registers every tool in `registry` and keeps it current: when a server announces another list,
   * its tools are replaced there, so the next step offers the new list (and its header logs the change).
   */
  attach(registry: ToolRegistry): void {
    for (const tool of this.tools) registry.register(tool);
    this.#registries.add(registry);
  }

  /** @internal Whether {@link close} was called: a connection that ends then is no problem to report. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Closes every connection (stdio servers are stopped). */
  async close(): Promise<void> {
    this.#closing = true;
    this.#registries.clear();
    await Promise.all(this.#connections.map((connection) => connection.client.close().catch(() => undefined)));
  }

  /**
   * @internal Reads server `index`'s list again, every page, and takes it in ({@link replaceTools}).
   * A server's refreshes run one after another, in the order asked for; one never throws: a list the
   * server cannot give is a line for the person, and the tools stay as they were.
   */
  refresh(index: number): Promise<void> {
    const connection = this.#connections[index]!;
    const next = this.#refreshes[index]!.then(async () => {
      if (connection.closed || this.#closing) return;
      let list: Tool[];
      try {
        list = await listAllTools(connection.client);
      } catch (error) {
        if (!connection.closed && !this.#closing) this.#options.onProblem?.(`MCP server ${connection.name} announced another tool list but did not give it: ${(error as Error).message}`);
        return;
      }
      this.replaceTools(index, list);
    });
    this.#refreshes[index] = next;
    return next;
  }

  /**
   * @internal Takes in a server's new list: its tools are replaced in every attached registry at once
   * (an unchanged list changes nothing, not even the order; a description or schema changed under the
   * same name is a change). A list dsh cannot take whole (a name twice, a tool dsh cannot offer) is
   * refused with a line, the previous tools kept; a name another owner holds is left out, with a line.
   */
  replaceTools(index: number, tools: readonly Tool[]): void {
    const connection = this.#connections[index]!;
    const next: AgentTool[] = [];
    const names = new Set<string>();
    for (const tool of tools) {
      let agentTool: AgentTool;
      try {
        agentTool = this.#agentTool(index, tool);
      } catch (error) {
        this.#options.onProblem?.(`MCP server ${connection.name}'s new tool list is refused, its tools kept as they were: ${(error as Error).message}`);
        return;
      }
      if (names.has(agentTool.schema.name)) {
        this.#options.onProblem?.(`MCP server ${connection.name}'s new tool list is refused, its tools kept as they were: it offers ${agentTool.schema.name} twice`);
        return;
      }
      names.add(agentTool.schema.name);
      next.push(agentTool);
    }
    const current = this.#offered[index]!;
    if (JSON.stringify(next.map((tool) => tool.schema)) === JSON.stringify(current.map((tool) => tool.schema))) return;
    const own = new Set(current.map((tool) => tool.schema.name));
    const kept = next.filter((tool) => {
      const clash = [...this.#registries].some((registry) => registry.get(tool.schema.name) !== undefined && !own.has(tool.schema.name));
      if (clash) this.#options.onProblem?.(`MCP server ${connection.name} now offers ${tool.schema.name}, which another tool holds: left out`);
      return !clash;
    });
    // Every name is free now: nothing below can fail halfway.
    for (const registry of this.#registries) {
      for (const old of current) registry.unregister(old.schema.name);
      for (const tool of kept) registry.register(tool);
    }
    this.#offered[index] = kept;
  }

  /**
   * After a call to a server that announces list changes, its list is read again before the result
   * returns: a change the call caused (a tool that enables others) is then offered from the next step
   * on, whatever the timing of the server's notification.
   */
  async #refreshAfterCall(index: number): Promise<void> {
    const connection = this.#connections[index]!;
    if (connection.closed || connection.client.getServerCapabilities()?.tools?.listChanged !== true) return;
    await this.refresh(index);
  }

  #agentTool(index: number, tool: Tool): AgentTool {
    const connection = this.#connections[index]!;
    const schema = schemaOf(connection, tool);
    const timeout = connection.spec.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    return {
      schema,
      safeToRerun: connection.spec.safeToRerun ?? safeToRerunByAnnotations(tool),
      invoke: async (rawArguments: string, context: ToolContext): Promise<ToolOutcome> => {
        let args: unknown;
        try {
          args = rawArguments.trim() === "" ? {} : JSON.parse(rawArguments);
        } catch (cause) {
          return errorOutcome("TOOL_INVALID_JSON", `arguments are not valid JSON: ${(cause as Error).message}`);
        }
        if (args === null || typeof args !== "object" || Array.isArray(args)) return errorOutcome("TOOL_INVALID_ARGUMENTS", "arguments must be a JSON object");
        if (connection.closed) return this.#failed(connection, schema.name, "the server is no longer running");
        let result: Parameters<typeof toolOutcome>[0];
        try {
          const report = context.reportProgress;
          const progress = report === undefined ? {} : { onprogress: ({ progress, total, message }: { progress: number; total?: number | undefined; message?: string | undefined }) => report({ progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }) };
          result = (await connection.client.callTool({ name: tool.name, arguments: args as Record<string, unknown> }, undefined, { signal: context.signal, timeout, ...progress })) as typeof result;
        } catch (error) {
          if (context.signal.aborted) return errorOutcome("TOOL_ABORTED", "the call was aborted");
          return this.#failed(connection, schema.name, (error as Error).message);
        }
        // The server completed the call: whatever its new list holds, the model gets this result.
        await this.#refreshAfterCall(index);
        try {
          return await toolOutcome(result, this.#options.attachments);
        } catch (error) {
          return this.#failed(connection, schema.name, (error as Error).message);
        }
      },
    };
  }

  /** A call that could not complete: the model gets an error result, the person one line (what dsh refused, when it closed the connection itself). */
  #failed(connection: McpConnection, tool: string, reported: string): ToolOutcome {
    const why = connection.refusal() ?? reported;
    const tail = connection.stderrTail().trim().split("\n").at(-1) ?? "";
    this.#options.onProblem?.(`MCP server ${connection.name}: ${tool} failed: ${why}${tail === "" ? "" : ` (it wrote: ${tail})`}`);
    return errorOutcome("TOOL_FAILED", `MCP server ${connection.name} could not complete the call: ${why}`);
  }
}

/**
 * Connects to MCP servers (stdio commands and Streamable HTTP URLs), lists their tools and returns
 * them as dsh tools, names checked for collisions with each other and with `reservedNames`. If any
 * server fails, those already connected are closed and the error (`McpError`) is thrown.
 */
export async function connectMcpServers(specs: readonly McpServerSpec[], options: McpToolsOptions = {}): Promise<McpTools> {
  const connections: McpConnection[] = [];
  let tools: McpTools | undefined;
  let failed = false;
  /** Servers that announced another list before every server was connected: read again once they are. */
  const announced = new Set<number>();
  try {
    const lists: Tool[][] = [];
    for (const [index, spec] of specs.entries()) {
      const connection = await connectServer(
        spec,
        () => (tools === undefined ? announced.add(index) : void tools.refresh(index)),
        () => {
          if (failed || tools?.closing === true) return;
          const refused = connections[index]?.refusal();
          options.onProblem?.(refused === undefined ? `MCP server ${serverName(spec)} closed the connection: its tools now answer with an error` : `MCP server ${serverName(spec)}: ${refused}; its tools now answer with an error`);
        },
      );
      connections.push(connection);
      lists.push(await listAllTools(connection.client).catch((cause: unknown) => {
        throw new McpError("MCP_CONNECT", `MCP server ${connection.name} did not list its tools: ${connection.refusal() ?? (cause as Error).message}`, { cause });
      }));
    }
    tools = new McpTools(connections, lists, options);
    await Promise.all([...announced].map((index) => tools!.refresh(index)));
    return tools;
  } catch (error) {
    failed = true;
    await Promise.all(connections.map((connection) => connection.client.close().catch(() => undefined)));
    throw error;
  }
}
