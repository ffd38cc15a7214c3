import { readFile } from "node:fs/promises";
import { z } from "zod";

/** A fault the simulator injects instead of (or in the middle of) an answer. */
export const faultSchema = z.enum(["http-429", "http-500", "truncate", "malformed", "stall", "overloaded"]);
export type Fault = z.output<typeof faultSchema>;

const toolCallSchema = z.strictObject({
  name: z.string().min(1),
  /** An object is sent as compact JSON; a string is sent as is (it may be invalid JSON on purpose). */
  arguments: z.union([z.record(z.string(), z.json()), z.string()]),
});

/** One scripted reply. */
export const scriptedResponseSchema = z.strictObject({
  reasoning: z.string().exactOptional(),
  text: z.string().exactOptional(),
  toolCalls: z.array(toolCallSchema).exactOptional(),
  finishReason: z.enum(["stop", "length", "tool_calls"]).exactOptional(),
  fault: faultSchema.exactOptional(),
});
export type ScriptedResponse = z.output<typeof scriptedResponseSchema>;

/**
 * A scenario: replies served in order, one per request (a fault consumes its own request, so the
 * retry gets the next reply), or the built-in `explore` policy that lists, reads and summarizes.
 */
export const scenarioSchema = z.union([
  z.strictObject({ responses: z.array(scriptedResponseSchema).min(1) }),
  /** `delegates`: how many subagent calls the policy makes at once when offered `delegate` (default 1). */
  z.strictObject({ policy: z.literal("explore"), delegates: z.number().int().min(1).max(8).exactOptional() }),
]);
export type Scenario = z.output<typeof scenarioSchema>;

/** Reads and validates a scenario file; the error names the file and the problem. */
export async function loadScenario(path: string): Promise<Scenario> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (cause) {
    throw new Error(`cannot read scenario ${path}: ${(cause as Error).message}`, { cause });
  }
  const parsed = scenarioSchema.safeParse(json);
  if (!parsed.success) throw new Error(`invalid scenario ${path}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
