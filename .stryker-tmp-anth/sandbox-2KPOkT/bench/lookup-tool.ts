import { defineTool } from "dsh-agent";
import { z } from "zod";

/** The benchmarks' one tool: a deterministic lookup whose result depends only on its key. */
export const lookupTool = defineTool({
  name: "lookup",
  description: "Look up a value by key",
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}: ${key.length * 7} units, last updated in build ${key.length}`,
});
