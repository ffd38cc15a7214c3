import { readdir, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, normalize, relative, resolve, sep } from "node:path";
import { ConfinedFileError, openConfined, readHead } from "dsh-base";
import { ToolError, defineTool, type AgentTool } from "dsh-agent";
import type { FileHandle } from "node:fs/promises";
import { z } from "zod";

const MAX_READ_BYTES = 64 * 1024;

/** The directory of the working directory where dsh keeps its own sessions: never shown to the model. */
const STORE_DIR = ".dsh";

/** Files that hold credentials by their name alone: never read for the model. */
const CREDENTIAL_FILE = /^(?:\.env(?:\..+)?|\.netrc|\.pgpass|\.npmrc|\.git-credentials)$/;
/** How a PEM private key (PKCS#8, encrypted, RSA, EC, OpenSSH) starts: a file holding one is never read for the model. */
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/;

/** Options of {@link workspaceTools}. */
export interface WorkspaceToolOptions {
  /** Files of dsh's own this run uses (its log or store, a signing key, a witness): never listed nor read. */
  readonly hidden?: readonly string[];
}

/** The real paths of `paths` (a file's directory resolved, so a file not made yet is named as it will be). */
async function realPaths(paths: readonly string[]): Promise<Set<string>> {
  const real = await Promise.all(paths.map(async (path) => join(await realpath(dirname(resolve(path))).catch(() => dirname(resolve(path))), basename(path))));
  return new Set(real);
}

/** Where the file `handle` holds is, relative to `root` (where it really is, on Linux; else by its path). */
async function placeIn(root: string, handle: FileHandle, path: string): Promise<string> {
  const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  return real === undefined ? normalize(path) : relative(await realpath(root), real);
}

/**
 * Opens `path` confined to `root`, and outside dsh's own store and `hidden` files, with where it is
 * relative to `root` (`""` for `root` itself); a refusal becomes a tool error the model reads.
 */
async function openForTool(root: string, path: string, directory: boolean, hidden: Set<string>): Promise<{ readonly handle: FileHandle; readonly place: string }> {
  let handle: FileHandle;
  try {
    handle = await openConfined(root, path, { directory });
  } catch (error) {
    if (!(error instanceof ConfinedFileError)) throw error;
    const why = { FILE_MISSING: "does not exist", FILE_OUTSIDE: "is outside the working directory", FILE_NOT_REGULAR: "is not a regular file", FILE_NOT_DIRECTORY: "is not a directory" }[error.code];
    throw new ToolError("TOOL_FAILED", `${path} ${why}`);
  }
  const place = await placeIn(root, handle, path);
  if (place.split(sep)[0] === STORE_DIR || hidden.has(resolve(await realpath(root), place))) {
    await handle.close();
    throw new ToolError("TOOL_FAILED", `${path} does not exist`);
  }
  return { handle, place };
}

/**
 * `read_file {path}` and `list_dir {path}`, confined to `root`: what is opened is proven to be inside
 * it (symlinks and swapped path components included), and only what is returned is read. dsh's own
 * session store (`.dsh`) and the `hidden` files are out of view: not listed, and not readable; a file
 * named as credentials are (`.env`, `.netrc`, …) or holding a private key is never read.
 */
export function workspaceTools(root: string, options: WorkspaceToolOptions = {}): AgentTool[] {
  let hiddenPaths: Promise<Set<string>> | undefined;
  const hidden = () => (hiddenPaths ??= realPaths(options.hidden ?? []));
  return [
    defineTool({
      name: "list_dir",
      description: "List the entries of a directory inside the working directory. Directories end with '/'.",
      parameters: z.object({ path: z.string().describe("A path relative to the working directory") }),
      async execute({ path }) {
        const own = await hidden();
        const { handle, place } = await openForTool(root, path, true, own);
        try {
          // List the directory the handle holds (Linux names it in /proc), not whatever the path names now.
          const entries = await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
          // dsh's own session store and files are not part of the view: the agent never reads its own logs.
          const at = resolve(await realpath(root), place);
          const shown = entries.filter((entry) => !((place === "" || place === ".") && entry.name === STORE_DIR) && !own.has(join(at, entry.name)));
          const names = shown.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
          return names.length === 0 ? "(empty directory)" : names.join("\n");
        } finally {
          await handle.close();
        }
      },
    }),
    defineTool({
      name: "read_file",
      description: `Read a text file inside the working directory (at most ${MAX_READ_BYTES} bytes are returned).`,
      parameters: z.object({ path: z.string().describe("A path relative to the working directory") }),
      async execute({ path }) {
        const { handle, place } = await openForTool(root, path, false, await hidden());
        try {
          if (CREDENTIAL_FILE.test(basename(place))) throw new ToolError("TOOL_DENIED", `${path} is a credentials file: dsh keeps it out of the model's reach`);
          const { size } = await handle.stat();
          const text = (await readHead(handle, MAX_READ_BYTES)).toString("utf8");
          if (PRIVATE_KEY.test(text)) throw new ToolError("TOOL_DENIED", `${path} holds a private key: dsh keeps keys out of the model's reach`);
          return size > MAX_READ_BYTES ? `${text}\n[truncated: ${size} bytes in all]` : text;
        } finally {
          await handle.close();
        }
      },
    }),
  ];
}
