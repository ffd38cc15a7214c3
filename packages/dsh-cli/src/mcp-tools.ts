import type { AttachmentStore } from "dsh-attachments";
import { McpError, connectMcpServers, type McpServerSpec, type McpTools } from "dsh-mcp";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";

/** The `parseArgs` options that add MCP servers' tools. */
export const MCP_OPTIONS = {
  mcp: { type: "string", multiple: true },
  "mcp-url": { type: "string", multiple: true },
  "mcp-safe-to-rerun": { type: "string", multiple: true },
} as const;

export const MCP_USAGE = '[--mcp "[PREFIX=]COMMAND ARGS"]... [--mcp-url [PREFIX=]URL]... [--mcp-safe-to-rerun SERVER]...';

/** A flag's value without its optional `PREFIX=` (a tool name prefix such as `fs_=`), and the prefix. */
function prefixed(value: string): { readonly prefix?: string; readonly rest: string } {
  const match = /^([A-Za-z0-9_-]+)=(.*)$/s.exec(value.trim());
  return match === null ? { rest: value } : { prefix: match[1]!, rest: match[2]! };
}

/** A command line split into words: whitespace separates, single or double quotes keep a word together. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

/** The MCP flags of a command. */
type McpValues = { readonly mcp?: readonly string[] | undefined; readonly "mcp-url"?: readonly string[] | undefined; readonly "mcp-safe-to-rerun"?: readonly string[] | undefined };

/**
 * The servers `--mcp-safe-to-rerun` names (by the prefix given them, or their command line or URL as
 * written) marked safe to run again after a crash; a name that matches no server is a usage error.
 */
function markedSafe(specs: readonly McpServerSpec[], names: readonly string[]): McpServerSpec[] {
  const matches = (spec: McpServerSpec, name: string) => name === spec.prefix || name === spec.name || name === spec.url;
  for (const name of names) {
    if (!specs.some((spec) => matches(spec, name))) throw new CliError(`--mcp-safe-to-rerun ${name} names no --mcp or --mcp-url server (name one by its PREFIX, or its command line or URL as given)`, EXIT.usage);
  }
  return specs.map((spec) => (names.some((name) => matches(spec, name)) ? { ...spec, safeToRerun: true } : spec));
}

/** The servers the flags name, stdio commands first, each named by its command line or URL. */
function specsOf(values: McpValues, io: CliIo): McpServerSpec[] {
  const commands = (values.mcp ?? []).map((value): McpServerSpec => {
    const { prefix, rest } = prefixed(value);
    const [command, ...args] = splitCommand(rest);
    if (command === undefined) throw new CliError("--mcp takes a command line, e.g. --mcp \"npx my-mcp-server\"", EXIT.usage);
    // The server gets the SDK's minimal environment, never the provider keys in ours.
    return { name: rest.trim(), command, args, cwd: io.cwd, ...(prefix === undefined ? {} : { prefix }) };
  });
  const urls = (values["mcp-url"] ?? []).map((value): McpServerSpec => {
    const { prefix, rest } = prefixed(value);
    if (!URL.canParse(rest)) throw new CliError(`--mcp-url ${value} is not a URL`, EXIT.usage);
    return { url: rest, ...(prefix === undefined ? {} : { prefix }) };
  });
  return markedSafe([...commands, ...urls], values["mcp-safe-to-rerun"] ?? []);
}

/**
 * Connects the MCP servers the flags name (none: `undefined`), their tools checked against the
 * built-in ones; problems later (a server gone, a call that failed) are one `dsh: mcp:` line each.
 */
export async function cliMcpTools(values: Parameters<typeof specsOf>[0], reservedNames: readonly string[], attachments: AttachmentStore, io: CliIo): Promise<McpTools | undefined> {
  const specs = specsOf(values, io);
  if (specs.length === 0) return undefined;
  try {
    return await connectMcpServers(specs, { attachments, reservedNames, onProblem: (line) => io.stderr.write(`dsh: mcp: ${line}\n`) });
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    throw new CliError(`mcp: ${error.message}`, error.code === "MCP_CONNECT" ? EXIT.tools : EXIT.usage);
  }
}
