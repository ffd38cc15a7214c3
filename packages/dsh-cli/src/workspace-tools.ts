import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ToolError, defineTool, type AgentTool } from "dsh-agent";
import { z } from "zod";

const MAX_READ_BYTES = 64 * 1024;

/** Resolves `path` under `root`, following symlinks, and refuses anything that ends up outside it. */
async function inside(root: string, path: string): Promise<string> {
  const realRoot = await realpath(root);
  let target: string;
  try {
    target = await realpath(resolve(realRoot, path));
  } catch {
    throw new ToolError("TOOL_FAILED", `${path} does not exist`);
  }
  const rel = relative(realRoot, target);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new ToolError("TOOL_FAILED", `${path} is outside the working directory`);
  return target;
}

/** `read_file {path}` and `list_dir {path}`, confined to `root` (symlinks included). */
export function workspaceTools(root: string): AgentTool[] {
  return [
    defineTool({
      name: "list_dir",
      description: "List the entries of a directory inside the working directory. Directories end with '/'.",
      parameters: z.object({ path: z.string().describe("A path relative to the working directory") }),
      async execute({ path }) {
        const target = await inside(root, path);
        if (!(await stat(target)).isDirectory()) throw new ToolError("TOOL_FAILED", `${path} is not a directory`);
        const entries = await readdir(target, { withFileTypes: true });
        const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
        return names.length === 0 ? "(empty directory)" : names.join("\n");
      },
    }),
    defineTool({
      name: "read_file",
      description: `Read a text file inside the working directory (at most ${MAX_READ_BYTES} bytes are returned).`,
      parameters: z.object({ path: z.string().describe("A path relative to the working directory") }),
      async execute({ path }) {
        const target = await inside(root, path);
        if (!(await stat(target)).isFile()) throw new ToolError("TOOL_FAILED", `${path} is not a file`);
        const bytes = await readFile(target);
        const text = bytes.subarray(0, MAX_READ_BYTES).toString("utf8");
        return bytes.length > MAX_READ_BYTES ? `${text}\n[truncated: ${bytes.length} bytes in all]` : text;
      },
    }),
  ];
}
