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
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "./errors.js";

/** One MCP server: a command to start (stdio) or a URL to reach (Streamable HTTP). */
export interface McpServerSpec {
  /** How errors and the log name it (default: the command, or the URL's host). */
  readonly name?: string;
  /** The program to start; it speaks MCP on its standard input and output. */
  readonly command?: string;
  readonly args?: readonly string[];
  /** Its environment (default: a minimal one, as the SDK's); its working directory. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url?: string;
  /** Headers sent with every HTTP request (an `authorization` header, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Put before each of its tool names (`fs_` makes `read` `fs_read`), to tell servers apart. */
  readonly prefix?: string;
  /** How long one call may take before the model gets an error result (default 60 s). */
  readonly callTimeoutMs?: number;
}

/** The lines of a stdio server's standard error kept for an error message. */
const STDERR_TAIL = 2048;

/** A connected server: its client, its current tools, and what it last wrote to standard error. */
export interface McpConnection {
  readonly name: string;
  readonly spec: McpServerSpec;
  readonly client: Client;
  /** The end of what a stdio server wrote to standard error, for a failure's message. */
  stderrTail(): string;
  /** Whether the connection is gone (the server exited, the HTTP session ended). */
  readonly closed: boolean;
}
function transportOf(spec: McpServerSpec, stderr: (text: string) => void): Transport {
  if (stryMutAct_9fa48("0")) {
    {}
  } else {
    stryCov_9fa48("0");
    if (stryMutAct_9fa48("3") ? spec.command === undefined : stryMutAct_9fa48("2") ? false : stryMutAct_9fa48("1") ? true : (stryCov_9fa48("1", "2", "3"), spec.command !== undefined)) {
      if (stryMutAct_9fa48("4")) {
        {}
      } else {
        stryCov_9fa48("4");
        const transport = new StdioClientTransport(stryMutAct_9fa48("5") ? {} : (stryCov_9fa48("5"), {
          command: spec.command,
          args: stryMutAct_9fa48("6") ? [] : (stryCov_9fa48("6"), [...(stryMutAct_9fa48("7") ? spec.args && [] : (stryCov_9fa48("7"), spec.args ?? (stryMutAct_9fa48("8") ? ["Stryker was here"] : (stryCov_9fa48("8"), []))))]),
          ...((stryMutAct_9fa48("11") ? spec.env !== undefined : stryMutAct_9fa48("10") ? false : stryMutAct_9fa48("9") ? true : (stryCov_9fa48("9", "10", "11"), spec.env === undefined)) ? {} : stryMutAct_9fa48("12") ? {} : (stryCov_9fa48("12"), {
            env: stryMutAct_9fa48("13") ? {} : (stryCov_9fa48("13"), {
              ...spec.env
            })
          })),
          ...((stryMutAct_9fa48("16") ? spec.cwd !== undefined : stryMutAct_9fa48("15") ? false : stryMutAct_9fa48("14") ? true : (stryCov_9fa48("14", "15", "16"), spec.cwd === undefined)) ? {} : stryMutAct_9fa48("17") ? {} : (stryCov_9fa48("17"), {
            cwd: spec.cwd
          })),
          stderr: stryMutAct_9fa48("18") ? "" : (stryCov_9fa48("18"), "pipe")
        }));
        stryMutAct_9fa48("19") ? transport.stderr.on("data", (chunk: Buffer) => stderr(chunk.toString("utf8"))) : (stryCov_9fa48("19"), transport.stderr?.on(stryMutAct_9fa48("20") ? "" : (stryCov_9fa48("20"), "data"), stryMutAct_9fa48("21") ? () => undefined : (stryCov_9fa48("21"), (chunk: Buffer) => stderr(chunk.toString(stryMutAct_9fa48("22") ? "" : (stryCov_9fa48("22"), "utf8"))))));
        return transport;
      }
    }
    return new StreamableHTTPClientTransport(new URL(spec.url!), (stryMutAct_9fa48("25") ? spec.headers !== undefined : stryMutAct_9fa48("24") ? false : stryMutAct_9fa48("23") ? true : (stryCov_9fa48("23", "24", "25"), spec.headers === undefined)) ? {} : stryMutAct_9fa48("26") ? {} : (stryCov_9fa48("26"), {
      requestInit: stryMutAct_9fa48("27") ? {} : (stryCov_9fa48("27"), {
        headers: stryMutAct_9fa48("28") ? {} : (stryCov_9fa48("28"), {
          ...spec.headers
        })
      })
    }));
  }
}

/** The name a spec goes by. */
export function serverName(spec: McpServerSpec): string {
  if (stryMutAct_9fa48("29")) {
    {}
  } else {
    stryCov_9fa48("29");
    if (stryMutAct_9fa48("32") ? spec.name === undefined : stryMutAct_9fa48("31") ? false : stryMutAct_9fa48("30") ? true : (stryCov_9fa48("30", "31", "32"), spec.name !== undefined)) return spec.name;
    if (stryMutAct_9fa48("35") ? spec.command === undefined : stryMutAct_9fa48("34") ? false : stryMutAct_9fa48("33") ? true : (stryCov_9fa48("33", "34", "35"), spec.command !== undefined)) return (stryMutAct_9fa48("36") ? [] : (stryCov_9fa48("36"), [spec.command, ...(stryMutAct_9fa48("37") ? spec.args && [] : (stryCov_9fa48("37"), spec.args ?? (stryMutAct_9fa48("38") ? ["Stryker was here"] : (stryCov_9fa48("38"), []))))])).join(stryMutAct_9fa48("39") ? "" : (stryCov_9fa48("39"), " "));
    try {
      if (stryMutAct_9fa48("40")) {
        {}
      } else {
        stryCov_9fa48("40");
        return new URL(stryMutAct_9fa48("41") ? spec.url && "" : (stryCov_9fa48("41"), spec.url ?? (stryMutAct_9fa48("42") ? "Stryker was here!" : (stryCov_9fa48("42"), "")))).host;
      }
    } catch {
      if (stryMutAct_9fa48("43")) {
        {}
      } else {
        stryCov_9fa48("43");
        return String(spec.url);
      }
    }
  }
}

/** Every tool the server lists, all pages of it. */
export async function listAllTools(client: Client): Promise<Tool[]> {
  if (stryMutAct_9fa48("44")) {
    {}
  } else {
    stryCov_9fa48("44");
    const tools: Tool[] = stryMutAct_9fa48("45") ? ["Stryker was here"] : (stryCov_9fa48("45"), []);
    let cursor: string | undefined;
    do {
      if (stryMutAct_9fa48("46")) {
        {}
      } else {
        stryCov_9fa48("46");
        const page = await client.listTools((stryMutAct_9fa48("49") ? cursor !== undefined : stryMutAct_9fa48("48") ? false : stryMutAct_9fa48("47") ? true : (stryCov_9fa48("47", "48", "49"), cursor === undefined)) ? {} : stryMutAct_9fa48("50") ? {} : (stryCov_9fa48("50"), {
          cursor
        }));
        tools.push(...page.tools);
        cursor = page.nextCursor;
      }
    } while (stryMutAct_9fa48("52") ? cursor === undefined : stryMutAct_9fa48("51") ? false : (stryCov_9fa48("51", "52"), cursor !== undefined));
    return tools;
  }
}

/**
 * Starts or reaches one server and completes the MCP handshake. `onToolsChanged` receives the server's
 * new tool list whenever it announces one (`notifications/tools/list_changed`), `onClose` the end of the
 * connection. A spec with neither or both of a command and a URL is `MCP_INVALID_SERVER`; a server
 * that cannot be started or reached, or does not complete the handshake, `MCP_CONNECT`.
 */
export async function connectServer(spec: McpServerSpec, onToolsChanged: (tools: Tool[]) => void, onClose: () => void): Promise<McpConnection> {
  if (stryMutAct_9fa48("53")) {
    {}
  } else {
    stryCov_9fa48("53");
    if (stryMutAct_9fa48("56") ? spec.command === undefined !== (spec.url === undefined) : stryMutAct_9fa48("55") ? false : stryMutAct_9fa48("54") ? true : (stryCov_9fa48("54", "55", "56"), (stryMutAct_9fa48("59") ? spec.command !== undefined : stryMutAct_9fa48("58") ? false : stryMutAct_9fa48("57") ? true : (stryCov_9fa48("57", "58", "59"), spec.command === undefined)) === (stryMutAct_9fa48("62") ? spec.url !== undefined : stryMutAct_9fa48("61") ? false : stryMutAct_9fa48("60") ? true : (stryCov_9fa48("60", "61", "62"), spec.url === undefined)))) {
      if (stryMutAct_9fa48("63")) {
        {}
      } else {
        stryCov_9fa48("63");
        throw new McpError(stryMutAct_9fa48("64") ? "" : (stryCov_9fa48("64"), "MCP_INVALID_SERVER"), stryMutAct_9fa48("65") ? `` : (stryCov_9fa48("65"), `an MCP server needs a command or a URL, not ${(stryMutAct_9fa48("68") ? spec.command !== undefined : stryMutAct_9fa48("67") ? false : stryMutAct_9fa48("66") ? true : (stryCov_9fa48("66", "67", "68"), spec.command === undefined)) ? stryMutAct_9fa48("69") ? "" : (stryCov_9fa48("69"), "neither") : stryMutAct_9fa48("70") ? "" : (stryCov_9fa48("70"), "both")}`));
      }
    }
    const name = serverName(spec);
    let tail = stryMutAct_9fa48("71") ? "Stryker was here!" : (stryCov_9fa48("71"), "");
    let closed = stryMutAct_9fa48("72") ? true : (stryCov_9fa48("72"), false);
    let connected = stryMutAct_9fa48("73") ? true : (stryCov_9fa48("73"), false);
    const client = new Client(stryMutAct_9fa48("74") ? {} : (stryCov_9fa48("74"), {
      name: stryMutAct_9fa48("75") ? "" : (stryCov_9fa48("75"), "dsh"),
      version: stryMutAct_9fa48("76") ? "" : (stryCov_9fa48("76"), "1")
    }), stryMutAct_9fa48("77") ? {} : (stryCov_9fa48("77"), {
      listChanged: stryMutAct_9fa48("78") ? {} : (stryCov_9fa48("78"), {
        tools: stryMutAct_9fa48("79") ? {} : (stryCov_9fa48("79"), {
          onChanged: stryMutAct_9fa48("80") ? () => undefined : (stryCov_9fa48("80"), (error, tools) => stryMutAct_9fa48("83") ? error === null && tools !== null || onToolsChanged(tools) : stryMutAct_9fa48("82") ? false : stryMutAct_9fa48("81") ? true : (stryCov_9fa48("81", "82", "83"), (stryMutAct_9fa48("85") ? error === null || tools !== null : stryMutAct_9fa48("84") ? true : (stryCov_9fa48("84", "85"), (stryMutAct_9fa48("87") ? error !== null : stryMutAct_9fa48("86") ? true : (stryCov_9fa48("86", "87"), error === null)) && (stryMutAct_9fa48("89") ? tools === null : stryMutAct_9fa48("88") ? true : (stryCov_9fa48("88", "89"), tools !== null)))) && onToolsChanged(tools))),
          debounceMs: 0
        })
      })
    }));
    client.onclose = () => {
      if (stryMutAct_9fa48("90")) {
        {}
      } else {
        stryCov_9fa48("90");
        closed = stryMutAct_9fa48("91") ? false : (stryCov_9fa48("91"), true);
        // A server that never completed the handshake is reported by the connect failure alone.
        if (stryMutAct_9fa48("93") ? false : stryMutAct_9fa48("92") ? true : (stryCov_9fa48("92", "93"), connected)) onClose();
      }
    };
    try {
      if (stryMutAct_9fa48("94")) {
        {}
      } else {
        stryCov_9fa48("94");
        await client.connect(transportOf(spec, stryMutAct_9fa48("95") ? () => undefined : (stryCov_9fa48("95"), text => tail = stryMutAct_9fa48("96") ? tail + text : (stryCov_9fa48("96"), (stryMutAct_9fa48("97") ? tail - text : (stryCov_9fa48("97"), tail + text)).slice(stryMutAct_9fa48("98") ? +STDERR_TAIL : (stryCov_9fa48("98"), -STDERR_TAIL))))));
      }
    } catch (cause) {
      if (stryMutAct_9fa48("99")) {
        {}
      } else {
        stryCov_9fa48("99");
        await client.close().catch(() => undefined);
        const said = (stryMutAct_9fa48("102") ? tail.trim() !== "" : stryMutAct_9fa48("101") ? false : stryMutAct_9fa48("100") ? true : (stryCov_9fa48("100", "101", "102"), (stryMutAct_9fa48("103") ? tail : (stryCov_9fa48("103"), tail.trim())) === (stryMutAct_9fa48("104") ? "Stryker was here!" : (stryCov_9fa48("104"), "")))) ? stryMutAct_9fa48("105") ? "Stryker was here!" : (stryCov_9fa48("105"), "") : stryMutAct_9fa48("106") ? `` : (stryCov_9fa48("106"), ` (it wrote: ${stryMutAct_9fa48("107") ? tail.split("\n").at(-1) : (stryCov_9fa48("107"), tail.trim().split(stryMutAct_9fa48("108") ? "" : (stryCov_9fa48("108"), "\n")).at(stryMutAct_9fa48("109") ? +1 : (stryCov_9fa48("109"), -1)))})`);
        throw new McpError(stryMutAct_9fa48("110") ? "" : (stryCov_9fa48("110"), "MCP_CONNECT"), stryMutAct_9fa48("111") ? `` : (stryCov_9fa48("111"), `cannot connect to MCP server ${name}: ${(cause as Error).message}${said}`), stryMutAct_9fa48("112") ? {} : (stryCov_9fa48("112"), {
          cause
        }));
      }
    }
    connected = stryMutAct_9fa48("113") ? false : (stryCov_9fa48("113"), true);
    return stryMutAct_9fa48("114") ? {} : (stryCov_9fa48("114"), {
      name,
      spec,
      client,
      stderrTail: stryMutAct_9fa48("115") ? () => undefined : (stryCov_9fa48("115"), () => tail),
      get closed() {
        if (stryMutAct_9fa48("116")) {
          {}
        } else {
          stryCov_9fa48("116");
          return closed;
        }
      }
    });
  }
}