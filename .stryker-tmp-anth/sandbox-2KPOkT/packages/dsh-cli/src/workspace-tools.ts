import { readdir, readlink, realpath } from "node:fs/promises";
import { normalize, relative, sep } from "node:path";
import { ConfinedFileError, openConfined, readHead } from "dsh-base";
import { ToolError, defineTool, type AgentTool } from "dsh-agent";
import type { FileHandle } from "node:fs/promises";
import { z } from "zod";

const MAX_READ_BYTES = 64 * 1024;

/** The directory of the working directory where dsh keeps its own sessions: never shown to the model. */
const STORE_DIR = ".dsh";

/** Where the file `handle` holds is, relative to `root` (where it really is, on Linux; else by its path). */
async function placeIn(root: string, handle: FileHandle, path: string): Promise<string> {
  const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  return real === undefined ? normalize(path) : relative(await realpath(root), real);
}

/**
 * Opens `path` confined to `root`, and outside dsh's own store, with where it is relative to `root`
 * (`""` for `root` itself); a refusal becomes a tool error the model reads.
 */
async function openForTool(root: string, path: string, directory: boolean): Promise<{ readonly handle: FileHandle; readonly place: string }> {
  let handle: FileHandle;
  try {
    handle = await openConfined(root, path, { directory });
  } catch (error) {
    if (!(error instanceof ConfinedFileError)) throw error;
    const why = { FILE_MISSING: "does not exist", FILE_OUTSIDE: "is outside the working directory", FILE_NOT_REGULAR: "is not a regular file", FILE_NOT_DIRECTORY: "is not a directory" }[error.code];
    throw new ToolError("TOOL_FAILED", `${path} ${why}`);
  }
  const place = await placeIn(root, handle, path);
  if (place.split(sep)[0] === STORE_DIR) {
    await handle.close();
    throw new ToolError("TOOL_FAILED", `${path} does not exist`);
  }
  return { handle, place };
}

/**
 * `read_file {path}` and `list_dir {path}`, confined to `root`: what is opened is proven to be inside
 * it (symlinks and swapped path components included), and only what is returned is read. dsh's own
 * session store (`.dsh`) is out of view: not listed, and not readable.
 */
export function workspaceTools(root: string): AgentTool[] {
  return [
    defineTool({
      name: "list_dir",
      description: "List the entries of a directory inside the working directory. Directories end with '/'.",
      parameters: z.object({ path: z.string().describe("A path relative to the working directory") }),
      async execute({ path }) {
        const { handle, place } = await openForTool(root, path, true);
        try {
          // List the directory the handle holds (Linux names it in /proc), not whatever the path names now.
          const entries = await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
          // dsh's own session store is not part of the view: the agent never reads its own logs.
          const shown = place === "" || place === "." ? entries.filter((entry) => entry.name !== STORE_DIR) : entries;
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
        const { handle } = await openForTool(root, path, false);
        try {
          const { size } = await handle.stat();
          const text = (await readHead(handle, MAX_READ_BYTES)).toString("utf8");
          return size > MAX_READ_BYTES ? `${text}\n[truncated: ${size} bytes in all]` : text;
        } finally {
          await handle.close();
        }
      },
    }),
  ];
}
