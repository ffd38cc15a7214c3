import { z } from "zod";
import type { DeepReadonly } from "./freeze.js";

/**
 * Token accounting of one call. `inputTokens` counts the whole prompt, cached part included;
 * `cacheReadTokens` is the part served from the provider's prefix cache. Providers that write
 * cache entries with a lifetime (Anthropic) split `cacheWriteTokens` into `cacheWrite5mTokens` and
 * `cacheWrite1hTokens`.
 */
export const tokenUsageSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative().exactOptional(),
  cacheWrite5mTokens: z.number().int().nonnegative().exactOptional(),
  cacheWrite1hTokens: z.number().int().nonnegative().exactOptional(),
});

export type TokenUsage = DeepReadonly<z.output<typeof tokenUsageSchema>>;
