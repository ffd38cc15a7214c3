import { AnthropicAdapter, CLAUDE_MODELS, DEFAULT_CLAUDE_MODEL, lookupClaudeModel } from "dsh-anthropic";
import type { LlmAdapter, ModelDefaults, ReasoningEffort } from "dsh-llm";
import { ChatCompletionsAdapter, DEEPSEEK_MODELS, OPENAI_MODELS, lookupModel, type Dialect, type ModelCatalog } from "dsh-openai-compatible";
import { DEFAULT_GEMINI_MODEL, GEMINI_MODELS, GeminiAdapter, lookupGeminiModel } from "dsh-gemini";
import { DEFAULT_RESPONSES_MODEL, RESPONSES_MODELS, ResponsesAdapter, lookupResponsesModel } from "dsh-openai-responses";
import type { WireApi } from "dsh-wire";
import { CliError, EXIT } from "./cli-error.js";

/** What a catalog says of a model, as far as the CLI uses it. */
export interface CataloguedModel {
  readonly defaultReasoningEffort?: ReasoningEffort | undefined;
}

/** What the CLI knows about each provider it can run against. */
export interface ProviderProfile {
  readonly name: "sim" | "sim-anthropic" | "sim-openai-responses" | "sim-gemini" | "deepseek" | "openai" | "openai-compatible" | "openai-responses" | "anthropic" | "gemini";
  readonly wire: WireApi;
  readonly baseUrl: string | undefined;
  readonly defaultModel: string;
  readonly keyVariables: readonly string[];
  /** Whether it runs without a key (a server of your own); a key in `keyVariables` is still sent. */
  readonly keyOptional?: true;
  /** Whether the embedded simulator serves this provider when no `--base-url` is given. */
  readonly simulated: boolean;
  /** The model's catalog entry (`undefined` when unknown; a retired name throws `LLM_MODEL_RETIRED`); absent without a catalog. */
  readonly lookup: ((model: string) => CataloguedModel | undefined) | undefined;
  /** The adapter for this provider. */
  adapter(options: { readonly baseUrl: string; readonly apiKey: string | undefined; readonly idleTimeoutMs: number }): LlmAdapter;
}

function chatProfile(name: "sim" | "deepseek" | "openai" | "openai-compatible", dialect: Dialect, baseUrl: string | undefined, defaultModel: string, keyVariables: readonly string[], catalog: ModelCatalog | undefined, modelDefaults: ModelDefaults): ProviderProfile {
  return {
    name,
    wire: { api: "chat-completions", dialect },
    baseUrl,
    defaultModel,
    keyVariables,
    simulated: name === "sim",
    lookup: catalog === undefined ? undefined : (model) => lookupModel(catalog, model),
    adapter: ({ baseUrl: url, apiKey, idleTimeoutMs }) =>
      new ChatCompletionsAdapter({ provider: name, dialect, baseUrl: url, ...(apiKey === undefined ? {} : { apiKey }), ...(catalog === undefined ? { modelDefaults: () => modelDefaults } : { catalog }), idleTimeoutMs }),
  };
}

function messagesProfile(name: "anthropic" | "sim-anthropic"): ProviderProfile {
  const simulated = name === "sim-anthropic";
  return {
    name,
    wire: { api: "messages" },
    baseUrl: simulated ? undefined : "https://api.anthropic.com",
    defaultModel: DEFAULT_CLAUDE_MODEL,
    keyVariables: simulated ? ["DSH_API_KEY"] : ["DSH_API_KEY", "ANTHROPIC_API_KEY"],
    simulated,
    // Claude does not think unless asked: the catalog names no default effort.
    lookup: (model) => (lookupClaudeModel(CLAUDE_MODELS, model) === undefined ? undefined : {}),
    adapter: ({ baseUrl, apiKey, idleTimeoutMs }) => new AnthropicAdapter({ provider: name, baseUrl, apiKey, idleTimeoutMs }),
  };
}

function responsesProfile(name: "openai-responses" | "sim-openai-responses"): ProviderProfile {
  const simulated = name === "sim-openai-responses";
  return {
    name,
    wire: { api: "responses" },
    baseUrl: simulated ? undefined : "https://api.openai.com/v1",
    defaultModel: DEFAULT_RESPONSES_MODEL,
    keyVariables: simulated ? ["DSH_API_KEY"] : ["DSH_API_KEY", "OPENAI_API_KEY"],
    simulated,
    lookup: (model) => lookupResponsesModel(RESPONSES_MODELS, model),
    adapter: ({ baseUrl, apiKey, idleTimeoutMs }) => new ResponsesAdapter({ provider: name, baseUrl, apiKey, idleTimeoutMs }),
  };
}

function geminiProfile(name: "gemini" | "sim-gemini"): ProviderProfile {
  const simulated = name === "sim-gemini";
  return {
    name,
    wire: { api: "gemini" },
    baseUrl: simulated ? undefined : "https://generativelanguage.googleapis.com/v1beta",
    defaultModel: DEFAULT_GEMINI_MODEL,
    keyVariables: simulated ? ["DSH_API_KEY"] : ["DSH_API_KEY", "GEMINI_API_KEY"],
    simulated,
    lookup: (model) => {
      const info = lookupGeminiModel(GEMINI_MODELS, model);
      return info === undefined ? undefined : { defaultReasoningEffort: info.defaultThinkingLevel };
    },
    adapter: ({ baseUrl, apiKey, idleTimeoutMs }) => new GeminiAdapter({ provider: name, baseUrl, apiKey, idleTimeoutMs }),
  };
}

export const PROVIDERS: Readonly<Record<ProviderProfile["name"], ProviderProfile>> = {
  sim: chatProfile("sim", "deepseek", undefined, "sim-1", ["DSH_API_KEY"], undefined, { maxTokens: 4096 }),
  "sim-anthropic": messagesProfile("sim-anthropic"),
  "sim-openai-responses": responsesProfile("sim-openai-responses"),
  "sim-gemini": geminiProfile("sim-gemini"),
  deepseek: chatProfile("deepseek", "deepseek", "https://api.deepseek.com", "deepseek-v4-flash", ["DSH_API_KEY", "DEEPSEEK_API_KEY"], DEEPSEEK_MODELS, {}),
  openai: chatProfile("openai", "openai", "https://api.openai.com/v1", "gpt-5.5", ["DSH_API_KEY", "OPENAI_API_KEY"], OPENAI_MODELS, {}),
  // Any server that speaks Chat Completions (vLLM, Ollama, llama.cpp, a gateway): --base-url and --model are yours to give.
  "openai-compatible": { ...chatProfile("openai-compatible", "openai", undefined, "", ["DSH_API_KEY"], undefined, {}), keyOptional: true },
  "openai-responses": responsesProfile("openai-responses"),
  anthropic: messagesProfile("anthropic"),
  gemini: geminiProfile("gemini"),
};

/** The profile named `name`, or a usage error listing the choices. */
export function providerProfile(name: string): ProviderProfile {
  if (Object.hasOwn(PROVIDERS, name)) return PROVIDERS[name as ProviderProfile["name"]];
  throw new CliError(`unknown provider ${name}: choose ${Object.keys(PROVIDERS).join(", ")}`, EXIT.usage);
}

/** dsh's adapter for `provider` today (none for a provider dsh does not know). */
export function currentAdapter(provider: string): LlmAdapter | undefined {
  let profile;
  try {
    profile = providerProfile(provider);
  } catch {
    return undefined;
  }
  return profile.adapter({ baseUrl: profile.baseUrl ?? "http://127.0.0.1:9", apiKey: undefined, idleTimeoutMs: 1000 });
}

/** The first key found in the provider's environment variables. */
export function apiKeyFor(profile: ProviderProfile, env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const variable of profile.keyVariables) {
    const value = env[variable];
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}
