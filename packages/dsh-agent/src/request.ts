import type { EpochHeader } from "dsh-header";
import { freezeRequest, type FrozenGenerateOptions, type Message } from "dsh-llm";

/**
 * Builds the frozen request of a loop step from the surface messages (system first) and the
 * header. The live loop and `reconstructRequests` both call this, so they cannot diverge.
 */
export function buildLoopRequest(
  messages: readonly Message[],
  header: EpochHeader,
  signal?: AbortSignal,
): FrozenGenerateOptions {
  return freezeRequest({
    config: header.config,
    messages,
    ...(header.tools === undefined ? {} : { tools: header.tools }),
    ...(signal === undefined ? {} : { signal }),
  });
}
