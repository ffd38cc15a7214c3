import { LlmError, type JsonValue, type LlmCallConfig, type ReasoningEffort } from "dsh-llm";
import { reasoningEffortSchema } from "dsh-llm/schemas";
import { BREAKPOINT_POLICIES } from "dsh-anthropic";
import { RESPONSES_BREAKPOINT_POLICIES } from "dsh-openai-responses";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { providerProfile, type CataloguedModel, type ProviderProfile } from "./providers.js";

/** The `parseArgs` options that choose how the model runs: explicit choices, logged as such. */
export const SELECTION_OPTIONS = {
  effort: { type: "string" },
  thinking: { type: "string" },
  "cache-retention": { type: "string" },
  "cache-policy": { type: "string" },
  "cache-ttl": { type: "string" },
  "cache-diagnostics": { type: "boolean" },
} as const;

export const SELECTION_USAGE = "[--effort minimal|low|medium|high|xhigh|max] [--thinking on|off] [--cache-retention in_memory|24h] [--cache-policy rolling-v1|system-and-last-user-v1|none] [--cache-ttl 5m|1h] [--cache-diagnostics]";

export type SelectionValues = { [K in Exclude<keyof typeof SELECTION_OPTIONS, "cache-diagnostics">]?: string | undefined } & { readonly "cache-diagnostics"?: boolean | undefined };

const THINKING_EFFORTS = reasoningEffortSchema.options.filter((effort) => effort !== "none");

function effortFlag(value: string | undefined): ReasoningEffort | undefined {
  if (value === undefined) return undefined;
  const effort = THINKING_EFFORTS.find((known) => known === value);
  if (effort === undefined) throw new CliError(`--effort takes one of ${THINKING_EFFORTS.join(", ")} (use --thinking off to turn thinking off)`, EXIT.usage);
  return effort;
}

function thinkingFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== "on" && value !== "off") throw new CliError("--thinking takes on or off", EXIT.usage);
  return value === "on";
}

/** The reasoning effort the flags choose, over the one `config` already has; `--thinking on` alone takes `modelDefault`. */
function chosenEffort(config: LlmCallConfig, values: SelectionValues, modelDefault: ReasoningEffort | undefined): ReasoningEffort | undefined {
  const effort = effortFlag(values.effort);
  const thinking = thinkingFlag(values.thinking);
  if (thinking === false && effort !== undefined) throw new CliError("--effort says how hard to think: it cannot go with --thinking off", EXIT.usage);
  if (thinking === false) return "none";
  if (effort !== undefined) return effort;
  if (thinking === true && (config.reasoningEffort === undefined || config.reasoningEffort === "none")) return modelDefault ?? "high";
  return config.reasoningEffort;
}

/** The providers that route OpenAI's cache by `prompt_cache_key` and take a retention. */
const OPENAI_CACHE_PROVIDERS: ReadonlySet<string> = new Set(["openai", "openai-responses", "sim-openai-responses"]);

/** OpenAI's cache routing: `prompt_cache_key` (the session id unless the log already names one) and the retention asked for. */
function cacheExtensions(config: LlmCallConfig, values: SelectionValues, sessionId: string): LlmCallConfig["extensions"] {
  const retention = values["cache-retention"];
  if (!OPENAI_CACHE_PROVIDERS.has(config.provider)) {
    if (retention !== undefined) throw new CliError("--cache-retention applies to the OpenAI providers (openai, openai-responses, sim-openai-responses) only", EXIT.usage);
    return config.extensions;
  }
  if (retention !== undefined && retention !== "in_memory" && retention !== "24h") throw new CliError("--cache-retention takes in_memory or 24h", EXIT.usage);
  const extensions: Record<string, JsonValue> = { ...config.extensions };
  extensions.prompt_cache_key ??= sessionId;
  if (retention !== undefined) extensions.prompt_cache_retention = retention;
  return extensions;
}

/** Explicit caching (Anthropic's, and OpenAI's on the Responses API): the breakpoint policy and lifetime asked for, as explicit choices. */
function cacheChoices(config: LlmCallConfig, values: SelectionValues): Pick<LlmCallConfig, "cachePolicy" | "cacheTtl"> {
  const policy = values["cache-policy"] ?? config.cachePolicy;
  const ttl = values["cache-ttl"] ?? config.cacheTtl;
  const { api } = providerProfile(config.provider).wire;
  if (api === "responses") {
    if (values["cache-ttl"] !== undefined) throw new CliError("--cache-ttl applies to the Messages API providers (anthropic, sim-anthropic) only", EXIT.usage);
    if (policy !== undefined && !Object.hasOwn(RESPONSES_BREAKPOINT_POLICIES, policy)) throw new CliError(`--cache-policy takes one of ${Object.keys(RESPONSES_BREAKPOINT_POLICIES).join(", ")} on the Responses API`, EXIT.usage);
    return policy === undefined ? {} : { cachePolicy: policy };
  }
  if (api !== "messages") {
    if (values["cache-policy"] !== undefined || values["cache-ttl"] !== undefined) throw new CliError("--cache-policy and --cache-ttl apply to the Messages API providers (anthropic, sim-anthropic) and --cache-policy to the Responses API providers only", EXIT.usage);
    return {};
  }
  if (policy !== undefined && !Object.hasOwn(BREAKPOINT_POLICIES, policy)) throw new CliError(`--cache-policy takes one of ${Object.keys(BREAKPOINT_POLICIES).join(", ")}`, EXIT.usage);
  if (ttl !== undefined && ttl !== "5m" && ttl !== "1h") throw new CliError("--cache-ttl takes 5m or 1h", EXIT.usage);
  return { ...(policy === undefined ? {} : { cachePolicy: policy }), ...(ttl === undefined ? {} : { cacheTtl: ttl }) };
}

/** The cache diagnostics asked for (`--cache-diagnostics`), over what `config` already has; only the Messages and Responses APIs give them. */
function diagnosticsChoice(config: LlmCallConfig, values: SelectionValues): Pick<LlmCallConfig, "cacheDiagnostics"> {
  if (values["cache-diagnostics"] !== true) return config.cacheDiagnostics === undefined ? {} : { cacheDiagnostics: config.cacheDiagnostics };
  const { api } = providerProfile(config.provider).wire;
  if (api === "chat-completions" || api === "gemini") {
    throw new CliError("--cache-diagnostics applies to the Messages API providers (anthropic, sim-anthropic) and the Responses API providers (openai-responses, sim-openai-responses) only", EXIT.usage);
  }
  return { cacheDiagnostics: true };
}

/** What the provider's catalog says of `model`; a retired name is a usage error naming its replacement. */
function cataloguedModel(lookup: NonNullable<ProviderProfile["lookup"]>, model: string): CataloguedModel | undefined {
  try {
    return lookup(model);
  } catch (error) {
    if (error instanceof LlmError && error.code === "LLM_MODEL_RETIRED") throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

/**
 * Checks `config.model` against its provider's catalog (a retired name is a usage error naming the
 * replacement; an unknown one gets a warning) and lays the selection flags over `config`. Everything
 * returned is an explicit choice: the adapter's own defaults are added, and recorded as such, later.
 */
export function sessionConfig(config: LlmCallConfig, values: SelectionValues, sessionId: string, io: CliIo): LlmCallConfig {
  if (config.model === "") throw new CliError(`--provider ${config.provider} needs --model: the name the server knows the model by`, EXIT.usage);
  const { lookup } = providerProfile(config.provider);
  const info = lookup === undefined ? undefined : cataloguedModel(lookup, config.model);
  if (lookup !== undefined && info === undefined) {
    io.stderr.write(`dsh: warning: ${config.provider} model ${config.model} is not in dsh's catalog: sent as is, without defaults\n`);
  }
  const reasoningEffort = chosenEffort(config, values, info?.defaultReasoningEffort);
  const extensions = cacheExtensions(config, values, sessionId);
  const { reasoningEffort: _effort, extensions: _extensions, cachePolicy: _policy, cacheTtl: _ttl, cacheDiagnostics: _diagnostics, ...rest } = config;
  return {
    ...rest,
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...cacheChoices(config, values),
    ...diagnosticsChoice(config, values),
    ...(extensions === undefined ? {} : { extensions }),
  };
}
