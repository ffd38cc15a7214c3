import { callConfigEquals, jsonEquals, type DeepReadonly } from "dsh-llm";
import { llmCallConfigSchema, reasoningEffortSchema, toolSchemaSchema } from "dsh-llm/schemas";
import { z } from "zod";

/** The config values that came from the adapter's model defaults rather than from the caller. */
export const adapterDefaultsSchema = z.strictObject({
  maxTokens: z.number().int().positive().exactOptional(),
  reasoningEffort: reasoningEffortSchema.exactOptional(),
});
export type AdapterDefaults = DeepReadonly<z.output<typeof adapterDefaultsSchema>>;

const strictEpochHeaderSchema = z.strictObject({
  config: llmCallConfigSchema,
  tools: z.array(toolSchemaSchema).exactOptional(),
  adapterDefaults: adapterDefaultsSchema.exactOptional(),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The shapes writers never produce; admission names them instead of reporting a generic key error. */
function checkWriterShape(value: unknown, ctx: z.RefinementCtx): void {
  if (!isRecord(value)) return;
  if ("system" in value) {
    ctx.addIssue({
      code: "custom",
      path: ["system"],
      message: "header.system is not allowed: the rendered system prompt is the system/message at surface node 0",
    });
  }
  if (Array.isArray(value.tools) && value.tools.length === 0) {
    ctx.addIssue({ code: "custom", path: ["tools"], message: "tools: [] is never written: omit tools when there are none" });
  }
  if (Array.isArray(value.tools)) {
    const names = value.tools.map((tool) => (isRecord(tool) ? tool.name : undefined));
    const duplicate = names.find((name, i) => names.indexOf(name) !== i);
    if (duplicate !== undefined) {
      ctx.addIssue({ code: "custom", path: ["tools"], message: `tool ${String(duplicate)} is listed twice` });
    }
  }
  const defaults = value.adapterDefaults;
  if (isRecord(defaults)) {
    if (Object.keys(defaults).length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["adapterDefaults"],
        message: "adapterDefaults: {} is never written: omit it when no value came from adapter defaults",
      });
    }
    const config = isRecord(value.config) ? value.config : {};
    for (const [key, recorded] of Object.entries(defaults)) {
      if (config[key] !== recorded) {
        ctx.addIssue({
          code: "custom",
          path: ["adapterDefaults", key],
          message: `adapterDefaults.${key} (${JSON.stringify(recorded)}) must equal config.${key} (${JSON.stringify(config[key])})`,
        });
      }
    }
  }
}

/**
 * The non-history state of a request: call config and tools, plus which config values the adapter
 * defaulted. There is no system field. Admission rejects `header.system`, `tools: []` and
 * `adapterDefaults: {}` rather than repairing them; `stop: []` and nested extensions are kept.
 */
export const epochHeaderSchema = z.unknown().superRefine(checkWriterShape).pipe(strictEpochHeaderSchema);
export type EpochHeader = DeepReadonly<z.output<typeof strictEpochHeaderSchema>>;

/** Whether two headers would produce the same request header; tool order matters, key order does not. */
export function headerEquals(a: EpochHeader, b: EpochHeader): boolean {
  return callConfigEquals(a.config, b.config) && jsonEquals(a.tools, b.tools) && jsonEquals(a.adapterDefaults, b.adapterDefaults);
}
