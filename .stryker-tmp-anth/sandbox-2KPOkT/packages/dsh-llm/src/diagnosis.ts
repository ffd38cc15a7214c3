import { z } from "zod";
import type { DeepReadonly } from "./freeze.js";

/**
 * A provider's own verdict on its prompt cache for one request, compared with the previous answer:
 * `hit` (nothing diverged), `miss` with the provider's `reason` (its own word: `model_changed`,
 * `tools_changed`, `messages_changed`, `input_changed`, …) and the tokens it says were missed,
 * `not-found` (it no longer knows the previous answer), `unavailable`, or `pending` (not decided when
 * the answer was sent). Logged with the answer; never part of what the model sees.
 */
export const cacheDiagnosisSchema = z.strictObject({
  verdict: z.enum(["hit", "miss", "not-found", "unavailable", "pending"]),
  reason: z.string().min(1).exactOptional(),
  missedTokens: z.number().int().nonnegative().exactOptional(),
});
export type CacheDiagnosis = DeepReadonly<z.output<typeof cacheDiagnosisSchema>>;
