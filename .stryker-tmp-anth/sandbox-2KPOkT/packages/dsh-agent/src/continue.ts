import { foldRequestHeader, selectionFromHeader } from "dsh-header";
import type { LlmCallConfig } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { AgentError } from "./errors.js";

/** Choices only the provider they were made for understands; a switch of provider leaves them behind. */
const PROVIDER_SPECIFIC = ["cachePolicy", "cacheTtl", "cacheDiagnostics", "extensions"] as const;

/**
 * The call config that continues the session in `log`: the selection restored from its latest
 * header (explicit choices kept, adapter defaults left to the adapter, so a resume shows no drift),
 * with `overrides` on top. A different provider drops the provider-specific choices (cache policy and
 * TTL, cache diagnostics, extensions) and needs a `model`; a log without a request needs both `provider` and `model`.
 */
export function continuedSelection(log: EventLog, overrides: Partial<LlmCallConfig> = {}): LlmCallConfig {
  const latest = foldRequestHeader(log)?.header;
  if (latest === undefined) {
    const { provider, model } = overrides;
    if (provider === undefined || model === undefined) {
      throw new AgentError("AGENT_INVALID_OPTIONS", "the session has no request to continue from: give config with a provider and a model");
    }
    return { ...overrides, provider, model };
  }
  const { provider: loggedProvider, model: loggedModel, ...explicit } = selectionFromHeader(latest);
  const { provider = loggedProvider, model = provider === loggedProvider ? loggedModel : undefined, ...chosen } = overrides;
  if (model === undefined) {
    throw new AgentError("AGENT_INVALID_OPTIONS", `switching the session from provider ${loggedProvider} to ${provider} needs a model`);
  }
  if (provider !== loggedProvider) for (const key of PROVIDER_SPECIFIC) delete explicit[key];
  return { provider, model, ...explicit, ...chosen };
}
