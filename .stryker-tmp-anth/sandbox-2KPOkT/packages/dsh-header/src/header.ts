import { callConfigEquals, jsonEquals, type DeepReadonly } from "dsh-llm";
import { cacheTtlSchema, jsonObjectSchema, llmCallConfigSchema, reasoningEffortSchema, toolSchemaSchema } from "dsh-llm/schemas";
import { z } from "zod";

/** The config values that came from the adapter's model defaults rather than from the caller. */
export const adapterDefaultsSchema = z.strictObject({
  maxTokens: z.number().int().positive().exactOptional(),
  reasoningEffort: reasoningEffortSchema.exactOptional(),
  cachePolicy: llmCallConfigSchema.shape.cachePolicy,
  cacheTtl: cacheTtlSchema.exactOptional(),
});
export type AdapterDefaults = DeepReadonly<z.output<typeof adapterDefaultsSchema>>;

const strictEpochHeaderSchema = z.strictObject({
  config: llmCallConfigSchema,
  tools: z.array(toolSchemaSchema).exactOptional(),
  adapterDefaults: adapterDefaultsSchema.exactOptional(),
  /** The adapter's body-shaping settings for the model (its wire profile), as it declared them. */
  wire: jsonObjectSchema.exactOptional(),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A shape writers never produce, with where it is. */
interface WriterShapeProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** The shapes writers never produce; admission names them instead of reporting a generic key error. */
function writerShapeProblems(value: Record<string, unknown>): WriterShapeProblem[] {
  const problems: WriterShapeProblem[] = [];
  if ("system" in value) {
    problems.push({ path: ["system"], message: "header.system is not allowed: the rendered system prompt is the system/message at surface node 0" });
  }
  if (Array.isArray(value.tools)) {
    if (value.tools.length === 0) problems.push({ path: ["tools"], message: "tools: [] is never written: omit tools when there are none" });
    const names = value.tools.map((tool) => (isRecord(tool) ? tool.name : undefined));
    const duplicate = names.find((name, i) => names.indexOf(name) !== i);
    if (duplicate !== undefined) problems.push({ path: ["tools"], message: `tool ${String(duplicate)} is listed twice` });
  }
  if (isRecord(value.wire) && Object.keys(value.wire).length === 0) {
    problems.push({ path: ["wire"], message: "wire: {} is never written: omit it when the adapter declares no wire profile" });
  }
  const defaults = value.adapterDefaults;
  if (isRecord(defaults)) {
    if (Object.keys(defaults).length === 0) {
      problems.push({ path: ["adapterDefaults"], message: "adapterDefaults: {} is never written: omit it when no value came from adapter defaults" });
    }
    const config = isRecord(value.config) ? value.config : {};
    for (const [key, recorded] of Object.entries(defaults)) {
      if (config[key] !== recorded) {
        const message = `adapterDefaults.${key} (${JSON.stringify(recorded)}) must equal config.${key} (${JSON.stringify(config[key])})`;
        problems.push({ path: ["adapterDefaults", key], message });
      }
    }
  }
  return problems;
}

function checkWriterShape(value: unknown, ctx: z.RefinementCtx): void {
  if (!isRecord(value)) return;
  for (const { path, message } of writerShapeProblems(value)) ctx.addIssue({ code: "custom", path: [...path], message });
}

/**
 * The non-history state of a request: call config and tools, plus which config values the adapter
 * defaulted and the adapter's wire profile for the model. There is no system field. Admission rejects
 * `header.system`, `tools: []`, `adapterDefaults: {}` and `wire: {}` rather than repairing them;
 * `stop: []` and nested extensions are kept.
 */
export const epochHeaderSchema = z.unknown().superRefine(checkWriterShape).pipe(strictEpochHeaderSchema);
export type EpochHeader = DeepReadonly<z.output<typeof strictEpochHeaderSchema>>;

/** Whether two headers would produce the same request header; tool order matters, key order does not. */
export function headerEquals(a: EpochHeader, b: EpochHeader): boolean {
  return callConfigEquals(a.config, b.config) && jsonEquals(a.tools, b.tools) && jsonEquals(a.adapterDefaults, b.adapterDefaults) && jsonEquals(a.wire, b.wire);
}
