function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, type AgentTool, type ToolContext, type ToolOutcome, type ToolRegistry } from "dsh-agent";
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
  if (stryMutAct_9fa48("196")) {
    {}
  } else {
    stryCov_9fa48("196");
    return stryMutAct_9fa48("197") ? {} : (stryCov_9fa48("197"), {
      content: stryMutAct_9fa48("198") ? [] : (stryCov_9fa48("198"), [stryMutAct_9fa48("199") ? {} : (stryCov_9fa48("199"), {
        type: stryMutAct_9fa48("200") ? "" : (stryCov_9fa48("200"), "text"),
        text: stryMutAct_9fa48("201") ? `` : (stryCov_9fa48("201"), `Error [${code}]: ${message}`)
      })]),
      isError: stryMutAct_9fa48("202") ? false : (stryCov_9fa48("202"), true),
      additionalContexts: stryMutAct_9fa48("203") ? ["Stryker was here"] : (stryCov_9fa48("203"), [])
    });
  }
}

/** The schema an MCP tool is offered under: its name (prefixed), description and input schema exactly as the server gave them. */
function schemaOf(connection: McpConnection, tool: Tool): AgentTool["schema"] {
  if (stryMutAct_9fa48("204")) {
    {}
  } else {
    stryCov_9fa48("204");
    const parsed = toolSchemaSchema.safeParse(stryMutAct_9fa48("205") ? {} : (stryCov_9fa48("205"), {
      name: stryMutAct_9fa48("206") ? `` : (stryCov_9fa48("206"), `${stryMutAct_9fa48("207") ? connection.spec.prefix && "" : (stryCov_9fa48("207"), connection.spec.prefix ?? (stryMutAct_9fa48("208") ? "Stryker was here!" : (stryCov_9fa48("208"), "")))}${tool.name}`),
      description: stryMutAct_9fa48("209") ? tool.description && "" : (stryCov_9fa48("209"), tool.description ?? (stryMutAct_9fa48("210") ? "Stryker was here!" : (stryCov_9fa48("210"), ""))),
      parameters: tool.inputSchema
    }));
    if (stryMutAct_9fa48("213") ? false : stryMutAct_9fa48("212") ? true : stryMutAct_9fa48("211") ? parsed.success : (stryCov_9fa48("211", "212", "213"), !parsed.success)) {
      if (stryMutAct_9fa48("214")) {
        {}
      } else {
        stryCov_9fa48("214");
        throw new McpError(stryMutAct_9fa48("215") ? "" : (stryCov_9fa48("215"), "MCP_INVALID_TOOL"), stryMutAct_9fa48("216") ? `` : (stryCov_9fa48("216"), `MCP server ${connection.name} offers tool ${tool.name}, which dsh cannot offer: ${describeIssues(parsed.error.issues)}`));
      }
    }
    return parsed.data;
  }
}

/** The tools of connected MCP servers, kept in a registry and current with each server's announced list. */
export class McpTools {
  readonly #connections: readonly McpConnection[];
  readonly #options: McpToolsOptions;
  /** The tools each server offers now, by connection index. */
  readonly #offered: AgentTool[][];
  readonly #registries = new Set<ToolRegistry>();
  #closing = stryMutAct_9fa48("217") ? true : (stryCov_9fa48("217"), false);

  /** @internal Use {@link connectMcpServers}. */
  constructor(connections: readonly McpConnection[], lists: readonly Tool[][], options: McpToolsOptions) {
    if (stryMutAct_9fa48("218")) {
      {}
    } else {
      stryCov_9fa48("218");
      this.#connections = connections;
      this.#options = options;
      this.#offered = connections.map(stryMutAct_9fa48("219") ? () => undefined : (stryCov_9fa48("219"), (connection, i) => lists[i]!.map(stryMutAct_9fa48("220") ? () => undefined : (stryCov_9fa48("220"), tool => this.#agentTool(i, tool)))));
      const taken = new Map<string, string>((stryMutAct_9fa48("221") ? options.reservedNames && [] : (stryCov_9fa48("221"), options.reservedNames ?? (stryMutAct_9fa48("222") ? ["Stryker was here"] : (stryCov_9fa48("222"), [])))).map(stryMutAct_9fa48("223") ? () => undefined : (stryCov_9fa48("223"), name => stryMutAct_9fa48("224") ? [] : (stryCov_9fa48("224"), [name, stryMutAct_9fa48("225") ? "" : (stryCov_9fa48("225"), "a built-in tool")]))));
      this.#offered.forEach((tools, i) => {
        if (stryMutAct_9fa48("226")) {
          {}
        } else {
          stryCov_9fa48("226");
          for (const tool of tools) {
            if (stryMutAct_9fa48("227")) {
              {}
            } else {
              stryCov_9fa48("227");
              const owner = taken.get(tool.schema.name);
              if (stryMutAct_9fa48("230") ? owner === undefined : stryMutAct_9fa48("229") ? false : stryMutAct_9fa48("228") ? true : (stryCov_9fa48("228", "229", "230"), owner !== undefined)) {
                if (stryMutAct_9fa48("231")) {
                  {}
                } else {
                  stryCov_9fa48("231");
                  throw new McpError(stryMutAct_9fa48("232") ? "" : (stryCov_9fa48("232"), "MCP_NAME_COLLISION"), stryMutAct_9fa48("233") ? `` : (stryCov_9fa48("233"), `MCP server ${connections[i]!.name} offers ${tool.schema.name}, as does ${owner}: give one of the servers a prefix`));
                }
              }
              taken.set(tool.schema.name, stryMutAct_9fa48("234") ? `` : (stryCov_9fa48("234"), `MCP server ${connections[i]!.name}`));
            }
          }
        }
      });
    }
  }

  /** The tools offered now, server by server, in each server's order. */
  get tools(): readonly AgentTool[] {
    if (stryMutAct_9fa48("235")) {
      {}
    } else {
      stryCov_9fa48("235");
      return this.#offered.flat();
    }
  }

  /**
   * Registers every tool in `registry` and keeps it current: when a server announces another list,
   * its tools are replaced there, so the next step offers the new list (and its header logs the change).
   */
  attach(registry: ToolRegistry): void {
    if (stryMutAct_9fa48("236")) {
      {}
    } else {
      stryCov_9fa48("236");
      for (const tool of this.tools) registry.register(tool);
      this.#registries.add(registry);
    }
  }

  /** @internal Whether {@link close} was called: a connection that ends then is no problem to report. */
  get closing(): boolean {
    if (stryMutAct_9fa48("237")) {
      {}
    } else {
      stryCov_9fa48("237");
      return this.#closing;
    }
  }

  /** Closes every connection (stdio servers are stopped). */
  async close(): Promise<void> {
    if (stryMutAct_9fa48("238")) {
      {}
    } else {
      stryCov_9fa48("238");
      this.#closing = stryMutAct_9fa48("239") ? false : (stryCov_9fa48("239"), true);
      this.#registries.clear();
      await Promise.all(this.#connections.map(stryMutAct_9fa48("240") ? () => undefined : (stryCov_9fa48("240"), connection => connection.client.close().catch(() => undefined))));
    }
  }

  /**
   * @internal A server's new list: its tools are replaced in every attached registry (an unchanged list
   * changes nothing, not even the order); a name another owner holds is left out, with a line.
   */
  replaceTools(index: number, tools: readonly Tool[]): void {
    if (stryMutAct_9fa48("241")) {
      {}
    } else {
      stryCov_9fa48("241");
      const next: AgentTool[] = stryMutAct_9fa48("242") ? ["Stryker was here"] : (stryCov_9fa48("242"), []);
      for (const tool of tools) {
        if (stryMutAct_9fa48("243")) {
          {}
        } else {
          stryCov_9fa48("243");
          try {
            if (stryMutAct_9fa48("244")) {
              {}
            } else {
              stryCov_9fa48("244");
              next.push(this.#agentTool(index, tool));
            }
          } catch (error) {
            if (stryMutAct_9fa48("245")) {
              {}
            } else {
              stryCov_9fa48("245");
              stryMutAct_9fa48("246") ? this.#options.onProblem((error as Error).message) : (stryCov_9fa48("246"), this.#options.onProblem?.((error as Error).message));
            }
          }
        }
      }
      const current = this.#offered[index]!;
      if (stryMutAct_9fa48("249") ? JSON.stringify(next.map(tool => tool.schema)) !== JSON.stringify(current.map(tool => tool.schema)) : stryMutAct_9fa48("248") ? false : stryMutAct_9fa48("247") ? true : (stryCov_9fa48("247", "248", "249"), JSON.stringify(next.map(stryMutAct_9fa48("250") ? () => undefined : (stryCov_9fa48("250"), tool => tool.schema))) === JSON.stringify(current.map(stryMutAct_9fa48("251") ? () => undefined : (stryCov_9fa48("251"), tool => tool.schema))))) return;
      const connection = this.#connections[index]!;
      for (const registry of this.#registries) {
        if (stryMutAct_9fa48("252")) {
          {}
        } else {
          stryCov_9fa48("252");
          for (const old of this.#offered[index]!) registry.unregister(old.schema.name);
        }
      }
      const kept = stryMutAct_9fa48("253") ? next : (stryCov_9fa48("253"), next.filter(tool => {
        if (stryMutAct_9fa48("254")) {
          {}
        } else {
          stryCov_9fa48("254");
          const clash = stryMutAct_9fa48("255") ? [...this.#registries].every(registry => registry.get(tool.schema.name) !== undefined) : (stryCov_9fa48("255"), (stryMutAct_9fa48("256") ? [] : (stryCov_9fa48("256"), [...this.#registries])).some(stryMutAct_9fa48("257") ? () => undefined : (stryCov_9fa48("257"), registry => stryMutAct_9fa48("260") ? registry.get(tool.schema.name) === undefined : stryMutAct_9fa48("259") ? false : stryMutAct_9fa48("258") ? true : (stryCov_9fa48("258", "259", "260"), registry.get(tool.schema.name) !== undefined))));
          if (stryMutAct_9fa48("262") ? false : stryMutAct_9fa48("261") ? true : (stryCov_9fa48("261", "262"), clash)) stryMutAct_9fa48("263") ? this.#options.onProblem(`MCP server ${connection.name} now offers ${tool.schema.name}, which another tool holds: left out`) : (stryCov_9fa48("263"), this.#options.onProblem?.(stryMutAct_9fa48("264") ? `` : (stryCov_9fa48("264"), `MCP server ${connection.name} now offers ${tool.schema.name}, which another tool holds: left out`)));
          return stryMutAct_9fa48("265") ? clash : (stryCov_9fa48("265"), !clash);
        }
      }));
      for (const registry of this.#registries) for (const tool of kept) registry.register(tool);
      this.#offered[index] = kept;
    }
  }

  /**
   * After a call to a server that announces list changes, its list is read again before the result
   * returns: a change the call caused (a tool that enables others) is then offered from the next step
   * on, whatever the timing of the server's notification.
   */
  async #refreshAfterCall(index: number): Promise<void> {
    if (stryMutAct_9fa48("266")) {
      {}
    } else {
      stryCov_9fa48("266");
      const connection = this.#connections[index]!;
      if (stryMutAct_9fa48("269") ? connection.closed && connection.client.getServerCapabilities()?.tools?.listChanged !== true : stryMutAct_9fa48("268") ? false : stryMutAct_9fa48("267") ? true : (stryCov_9fa48("267", "268", "269"), connection.closed || (stryMutAct_9fa48("271") ? connection.client.getServerCapabilities()?.tools?.listChanged === true : stryMutAct_9fa48("270") ? false : (stryCov_9fa48("270", "271"), (stryMutAct_9fa48("273") ? connection.client.getServerCapabilities().tools?.listChanged : stryMutAct_9fa48("272") ? connection.client.getServerCapabilities()?.tools.listChanged : (stryCov_9fa48("272", "273"), connection.client.getServerCapabilities()?.tools?.listChanged)) !== (stryMutAct_9fa48("274") ? false : (stryCov_9fa48("274"), true)))))) return;
      const list = await listAllTools(connection.client).catch(() => undefined);
      if (stryMutAct_9fa48("277") ? list === undefined : stryMutAct_9fa48("276") ? false : stryMutAct_9fa48("275") ? true : (stryCov_9fa48("275", "276", "277"), list !== undefined)) this.replaceTools(index, list);
    }
  }
  #agentTool(index: number, tool: Tool): AgentTool {
    if (stryMutAct_9fa48("278")) {
      {}
    } else {
      stryCov_9fa48("278");
      const connection = this.#connections[index]!;
      const schema = schemaOf(connection, tool);
      const timeout = stryMutAct_9fa48("279") ? connection.spec.callTimeoutMs && DEFAULT_CALL_TIMEOUT_MS : (stryCov_9fa48("279"), connection.spec.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
      return stryMutAct_9fa48("280") ? {} : (stryCov_9fa48("280"), {
        schema,
        invoke: async (rawArguments: string, context: ToolContext): Promise<ToolOutcome> => {
          if (stryMutAct_9fa48("281")) {
            {}
          } else {
            stryCov_9fa48("281");
            let args: unknown;
            try {
              if (stryMutAct_9fa48("282")) {
                {}
              } else {
                stryCov_9fa48("282");
                args = (stryMutAct_9fa48("285") ? rawArguments.trim() !== "" : stryMutAct_9fa48("284") ? false : stryMutAct_9fa48("283") ? true : (stryCov_9fa48("283", "284", "285"), (stryMutAct_9fa48("286") ? rawArguments : (stryCov_9fa48("286"), rawArguments.trim())) === (stryMutAct_9fa48("287") ? "Stryker was here!" : (stryCov_9fa48("287"), "")))) ? {} : JSON.parse(rawArguments);
              }
            } catch (cause) {
              if (stryMutAct_9fa48("288")) {
                {}
              } else {
                stryCov_9fa48("288");
                return errorOutcome(stryMutAct_9fa48("289") ? "" : (stryCov_9fa48("289"), "TOOL_INVALID_JSON"), stryMutAct_9fa48("290") ? `` : (stryCov_9fa48("290"), `arguments are not valid JSON: ${(cause as Error).message}`));
              }
            }
            if (stryMutAct_9fa48("293") ? (args === null || typeof args !== "object") && Array.isArray(args) : stryMutAct_9fa48("292") ? false : stryMutAct_9fa48("291") ? true : (stryCov_9fa48("291", "292", "293"), (stryMutAct_9fa48("295") ? args === null && typeof args !== "object" : stryMutAct_9fa48("294") ? false : (stryCov_9fa48("294", "295"), (stryMutAct_9fa48("297") ? args !== null : stryMutAct_9fa48("296") ? false : (stryCov_9fa48("296", "297"), args === null)) || (stryMutAct_9fa48("299") ? typeof args === "object" : stryMutAct_9fa48("298") ? false : (stryCov_9fa48("298", "299"), typeof args !== (stryMutAct_9fa48("300") ? "" : (stryCov_9fa48("300"), "object")))))) || Array.isArray(args))) return errorOutcome(stryMutAct_9fa48("301") ? "" : (stryCov_9fa48("301"), "TOOL_INVALID_ARGUMENTS"), stryMutAct_9fa48("302") ? "" : (stryCov_9fa48("302"), "arguments must be a JSON object"));
            if (stryMutAct_9fa48("304") ? false : stryMutAct_9fa48("303") ? true : (stryCov_9fa48("303", "304"), connection.closed)) return this.#failed(connection, schema.name, stryMutAct_9fa48("305") ? "" : (stryCov_9fa48("305"), "the server is no longer running"));
            try {
              if (stryMutAct_9fa48("306")) {
                {}
              } else {
                stryCov_9fa48("306");
                const result = await connection.client.callTool(stryMutAct_9fa48("307") ? {} : (stryCov_9fa48("307"), {
                  name: tool.name,
                  arguments: args as Record<string, unknown>
                }), undefined, stryMutAct_9fa48("308") ? {} : (stryCov_9fa48("308"), {
                  signal: context.signal,
                  timeout
                }));
                await this.#refreshAfterCall(index);
                return await toolOutcome(result as Parameters<typeof toolOutcome>[0], this.#options.attachments);
              }
            } catch (error) {
              if (stryMutAct_9fa48("309")) {
                {}
              } else {
                stryCov_9fa48("309");
                if (stryMutAct_9fa48("311") ? false : stryMutAct_9fa48("310") ? true : (stryCov_9fa48("310", "311"), context.signal.aborted)) return errorOutcome(stryMutAct_9fa48("312") ? "" : (stryCov_9fa48("312"), "TOOL_ABORTED"), stryMutAct_9fa48("313") ? "" : (stryCov_9fa48("313"), "the call was aborted"));
                return this.#failed(connection, schema.name, (error as Error).message);
              }
            }
          }
        }
      });
    }
  }

  /** A call that could not complete: the model gets an error result, the person one line. */
  #failed(connection: McpConnection, tool: string, why: string): ToolOutcome {
    if (stryMutAct_9fa48("314")) {
      {}
    } else {
      stryCov_9fa48("314");
      const tail = stryMutAct_9fa48("315") ? connection.stderrTail().trim().split("\n").at(-1) && "" : (stryCov_9fa48("315"), (stryMutAct_9fa48("316") ? connection.stderrTail().split("\n").at(-1) : (stryCov_9fa48("316"), connection.stderrTail().trim().split(stryMutAct_9fa48("317") ? "" : (stryCov_9fa48("317"), "\n")).at(stryMutAct_9fa48("318") ? +1 : (stryCov_9fa48("318"), -1)))) ?? (stryMutAct_9fa48("319") ? "Stryker was here!" : (stryCov_9fa48("319"), "")));
      stryMutAct_9fa48("320") ? this.#options.onProblem(`MCP server ${connection.name}: ${tool} failed: ${why}${tail === "" ? "" : ` (it wrote: ${tail})`}`) : (stryCov_9fa48("320"), this.#options.onProblem?.(stryMutAct_9fa48("321") ? `` : (stryCov_9fa48("321"), `MCP server ${connection.name}: ${tool} failed: ${why}${(stryMutAct_9fa48("324") ? tail !== "" : stryMutAct_9fa48("323") ? false : stryMutAct_9fa48("322") ? true : (stryCov_9fa48("322", "323", "324"), tail === (stryMutAct_9fa48("325") ? "Stryker was here!" : (stryCov_9fa48("325"), "")))) ? stryMutAct_9fa48("326") ? "Stryker was here!" : (stryCov_9fa48("326"), "") : stryMutAct_9fa48("327") ? `` : (stryCov_9fa48("327"), ` (it wrote: ${tail})`)}`)));
      return errorOutcome(stryMutAct_9fa48("328") ? "" : (stryCov_9fa48("328"), "TOOL_FAILED"), stryMutAct_9fa48("329") ? `` : (stryCov_9fa48("329"), `MCP server ${connection.name} could not complete the call: ${why}`));
    }
  }
}

/**
 * Connects to MCP servers (stdio commands and Streamable HTTP URLs), lists their tools and returns
 * them as dsh tools, names checked for collisions with each other and with `reservedNames`. If any
 * server fails, those already connected are closed and the error (`McpError`) is thrown.
 */
export async function connectMcpServers(specs: readonly McpServerSpec[], options: McpToolsOptions = {}): Promise<McpTools> {
  if (stryMutAct_9fa48("330")) {
    {}
  } else {
    stryCov_9fa48("330");
    const connections: McpConnection[] = stryMutAct_9fa48("331") ? ["Stryker was here"] : (stryCov_9fa48("331"), []);
    let tools: McpTools | undefined;
    let failed = stryMutAct_9fa48("332") ? true : (stryCov_9fa48("332"), false);
    const pending: [number, Tool[]][] = stryMutAct_9fa48("333") ? ["Stryker was here"] : (stryCov_9fa48("333"), []);
    try {
      if (stryMutAct_9fa48("334")) {
        {}
      } else {
        stryCov_9fa48("334");
        const lists: Tool[][] = stryMutAct_9fa48("335") ? ["Stryker was here"] : (stryCov_9fa48("335"), []);
        for (const [index, spec] of specs.entries()) {
          if (stryMutAct_9fa48("336")) {
            {}
          } else {
            stryCov_9fa48("336");
            const connection = await connectServer(spec, stryMutAct_9fa48("337") ? () => undefined : (stryCov_9fa48("337"), list => (stryMutAct_9fa48("340") ? tools !== undefined : stryMutAct_9fa48("339") ? false : stryMutAct_9fa48("338") ? true : (stryCov_9fa48("338", "339", "340"), tools === undefined)) ? pending.push(stryMutAct_9fa48("341") ? [] : (stryCov_9fa48("341"), [index, list])) : tools.replaceTools(index, list)), () => {
              if (stryMutAct_9fa48("342")) {
                {}
              } else {
                stryCov_9fa48("342");
                if (stryMutAct_9fa48("345") ? !failed || tools?.closing !== true : stryMutAct_9fa48("344") ? false : stryMutAct_9fa48("343") ? true : (stryCov_9fa48("343", "344", "345"), (stryMutAct_9fa48("346") ? failed : (stryCov_9fa48("346"), !failed)) && (stryMutAct_9fa48("348") ? tools?.closing === true : stryMutAct_9fa48("347") ? true : (stryCov_9fa48("347", "348"), (stryMutAct_9fa48("349") ? tools.closing : (stryCov_9fa48("349"), tools?.closing)) !== (stryMutAct_9fa48("350") ? false : (stryCov_9fa48("350"), true)))))) stryMutAct_9fa48("351") ? options.onProblem(`MCP server ${serverName(spec)} closed the connection: its tools now answer with an error`) : (stryCov_9fa48("351"), options.onProblem?.(stryMutAct_9fa48("352") ? `` : (stryCov_9fa48("352"), `MCP server ${serverName(spec)} closed the connection: its tools now answer with an error`)));
              }
            });
            connections.push(connection);
            lists.push(await listAllTools(connection.client).catch((cause: unknown) => {
              if (stryMutAct_9fa48("353")) {
                {}
              } else {
                stryCov_9fa48("353");
                throw new McpError(stryMutAct_9fa48("354") ? "" : (stryCov_9fa48("354"), "MCP_CONNECT"), stryMutAct_9fa48("355") ? `` : (stryCov_9fa48("355"), `MCP server ${connection.name} did not list its tools: ${(cause as Error).message}`), stryMutAct_9fa48("356") ? {} : (stryCov_9fa48("356"), {
                  cause
                }));
              }
            }));
          }
        }
        tools = new McpTools(connections, lists, options);
        for (const [index, list] of pending) tools.replaceTools(index, list);
        return tools;
      }
    } catch (error) {
      if (stryMutAct_9fa48("357")) {
        {}
      } else {
        stryCov_9fa48("357");
        failed = stryMutAct_9fa48("358") ? false : (stryCov_9fa48("358"), true);
        await Promise.all(connections.map(stryMutAct_9fa48("359") ? () => undefined : (stryCov_9fa48("359"), connection => connection.client.close().catch(() => undefined))));
        throw error;
      }
    }
  }
}