import { z } from "zod";
import type { DeepReadonly } from "./freeze.js";
import { jsonObjectSchema } from "./json.js";

/** A tool as the model sees it: a name, a description and a JSON Schema for its arguments. */
export const toolSchemaSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "tool names are 1-64 characters of [A-Za-z0-9_-]"),
  description: z.string(),
  parameters: jsonObjectSchema,
});

export type ToolSchema = DeepReadonly<z.output<typeof toolSchemaSchema>>;
