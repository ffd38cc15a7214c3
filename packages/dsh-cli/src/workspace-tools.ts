import { constants } from "node:fs";
import { open, readdir, readlink, realpath, stat, type FileHandle } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ToolError, defineTool, type AgentTool } from "dsh-agent";
import { z } from "zod";

const MAX_READ_BYTES = 64 * 1024;

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/**
 * Where the open file behind `handle` really is. On Linux the kernel names it (`/proc/self/fd`), which
 * no later swap of a path component can change; elsewhere, the path's real location, accepted only if
 * it is the very file the handle holds (same device and inode).
 */
async function locationOf(handle: FileHandle, path: string): Promise<string | undefined> {
  const named = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (named !== undefined) return named;
  const opened = await handle.stat();
  const target = await realpath(path).catch(() => undefined);
  const found = target === undefined ? undefined : await stat(target).catch(() => undefined);
  return found?.dev === opened.dev && found.ino === opened.ino ? target : undefined;
}

/**
 * Opens `path` under `root`, then proves that what was opened is inside it, so a symlink or a path
 * component swapped in between cannot lead outside. Opened without blocking, so a FIFO cannot hang
 * the tool.
 */
async function openInside(root: string, path: string): Promise<FileHandle> {
  const realRoot = await realpath(root);
  let handle: FileHandle;
  try {
    handle = await open(resolve(realRoot, path), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    throw new ToolError("TOOL_FAILED", `${path} does not exist or cannot be opened`);
  }
  try {
    const location = await locationOf(handle, resolve(realRoot, path));
    if (location === undefined || !isInside(realRoot, location)) throw new ToolError("TOOL_FAILED", `${path} is outside the working directory`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads at most `limit` bytes from the start of an open file. */
async function readHead(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** `read_file {path}` and `list_dir {path}`, confined to `root` (symlinks included), reading only what they return. */
export function workspaceTools(root: string): AgentTool[] {
  return [
    defineTool({
      name: "list_dir",
      description: "List the entries of a directory inside the working directory. Directories end with '/'.",
      parameters: z.object({ path: z.string().describe("A path relative to the working directory") }),
      async execute({ path }) {
        const handle = await openInside(root, path);
        try {
          if (!(await handle.stat()).isDirectory()) throw new ToolError("TOOL_FAILED", `${path} is not a directory`);
          // Read the directory the handle holds (Linux names it in /proc), not whatever the path names now.
          const entries = await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true }).catch(() => readdir(resolve(root, path), { withFileTypes: true }));
          const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
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
        const handle = await openInside(root, path);
        try {
          const info = await handle.stat();
          if (!info.isFile()) throw new ToolError("TOOL_FAILED", `${path} is not a regular file`);
          const bytes = await readHead(handle, MAX_READ_BYTES);
          const text = bytes.toString("utf8");
          return info.size > MAX_READ_BYTES ? `${text}\n[truncated: ${info.size} bytes in all]` : text;
        } finally {
          await handle.close();
        }
      },
    }),
  ];
}
