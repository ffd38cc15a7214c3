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
  /** The largest message a stdio server may send, a tool's result included (default 16 MiB): a larger one closes the connection, saying why. */
  readonly maxMessageBytes?: number;
  /**
   * Whether its tools may run again after a crash (a durable turn runs a call that is not safe to
   * rerun at most once). Default: what each tool's annotations say (`readOnlyHint` or
   * `idempotentHint`); a tool that says neither is not.
   */
  readonly safeToRerun?: boolean;
}

/** The largest message dsh reads from a stdio server unless its spec says otherwise. */
const MAX_MCP_MESSAGE_BYTES = 16 * 2 ** 20;

/** The lines of a stdio server's standard error kept for an error message. */
const STDERR_TAIL = 2048;

/** A connected server: its client, its current tools, and what it last wrote to standard error. */
export interface McpConnection {
  readonly name: string;
  readonly spec: McpServerSpec;
  readonly client: Client;
  /** The end of what a stdio server wrote to standard error, for a failure's message. */
  stderrTail(): string;
  /** Why dsh closed the connection, when it refused what the server sent (a message too large or too deep to read). */
  refusal(): string | undefined;
  /** Whether the connection is gone (the server exited, the HTTP session ended). */
  readonly closed: boolean;
}

function transportOf(spec: McpServerSpec, stderr: (text: string) => void): Transport {
  if (spec.command !== undefined) {
    const transport = new StdioClientTransport({
      command: spec.command,
      maxBufferSize: spec.maxMessageBytes ?? MAX_MCP_MESSAGE_BYTES,
      args: [...(spec.args ?? [])],
      ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => stderr(chunk.toString("utf8")));
    return transport;
  }
  return new StreamableHTTPClientTransport(new URL(spec.url!), spec.headers === undefined ? {} : { requestInit: { headers: { ...spec.headers } } });
}

/** What dsh refused of a server's messages, from an error the SDK reports while reading them; `undefined` for any other. */
function refusalOf(error: Error, maxMessageBytes: number): string | undefined {
  if (error.message.startsWith("ReadBuffer exceeded maximum size")) return `dsh refused a message of more than ${maxMessageBytes} bytes from it (a result that large is not taken) and closed the connection`;
  if (error instanceof RangeError) return `dsh refused a message it could not read (${error.message}: nested too deep?) and closed the connection`;
  return undefined;
}

/** The name a spec goes by. */
export function serverName(spec: McpServerSpec): string {
  if (spec.name !== undefined) return spec.name;
  if (spec.command !== undefined) return [spec.command, ...(spec.args ?? [])].join(" ");
  try {
    return new URL(spec.url ?? "").host;
  } catch {
    return String(spec.url);
  }
}

/** Every tool the server lists, all pages of it. */
export async function listAllTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/**
 * Starts or reaches one server and completes the MCP handshake. `onToolsChanged` hears each time the
 * server announces another tool list (`notifications/tools/list_changed`): the caller reads it, every
 * page of it (the SDK's own refresh reads the first page only). `onClose` hears the end of the
 * connection. A spec with neither or both of a command and a URL is `MCP_INVALID_SERVER`; a server
 * that cannot be started or reached, or does not complete the handshake, `MCP_CONNECT`.
 */
export async function connectServer(spec: McpServerSpec, onToolsChanged: () => void, onClose: () => void): Promise<McpConnection> {
  if ((spec.command === undefined) === (spec.url === undefined)) {
    throw new McpError("MCP_INVALID_SERVER", `an MCP server needs a command or a URL, not ${spec.command === undefined ? "neither" : "both"}`);
  }
  const name = serverName(spec);
  let tail = "";
  let closed = false;
  let connected = false;
  const client = new Client(
    { name: "dsh", version: "1" },
    { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() } } },
  );
  client.onclose = () => {
    closed = true;
    // A server that never completed the handshake is reported by the connect failure alone.
    if (connected) onClose();
  };
  // What the SDK could not read (a message over the size limit, one nested too deep to parse) would
  // otherwise close the connection with no word, or leave the request waiting: name it, and close.
  let refused: string | undefined;
  client.onerror = (error) => {
    const why = refusalOf(error, spec.maxMessageBytes ?? MAX_MCP_MESSAGE_BYTES);
    if (why === undefined || refused !== undefined) return;
    refused = why;
    void client.close().catch(() => undefined);
  };
  try {
    await client.connect(transportOf(spec, (text) => (tail = (tail + text).slice(-STDERR_TAIL))));
  } catch (cause) {
    await client.close().catch(() => undefined);
    const said = tail.trim() === "" ? "" : ` (it wrote: ${tail.trim().split("\n").at(-1)})`;
    throw new McpError("MCP_CONNECT", `cannot connect to MCP server ${name}: ${refused ?? (cause as Error).message}${said}`, { cause });
  }
  connected = true;
  return {
    name,
    spec,
    client,
    stderrTail: () => tail,
    refusal: () => refused,
    get closed() {
      return closed;
    },
  };
}
