import { createHash } from "node:crypto";
import type { AttachmentStore } from "dsh-attachments";
import type { ReconstructedRequest } from "dsh-agent";
import { AnthropicAdapter, CLAUDE_MODELS, DEFAULT_CLAUDE_MODEL, lookupClaudeModel, serializeOptionsOfWire as serializeOptionsOfMessagesWire, serializeRequest as serializeMessages } from "dsh-anthropic";
import type { LlmAdapter, ModelDefaults, ReasoningEffort } from "dsh-llm";
import {
  ChatCompletionsAdapter,
  DEEPSEEK_MODELS,
  OPENAI_MODELS,
  lookupModel,
  serializeOptionsOfWire as serializeOptionsOfChatWire,
  serializeRequest as serializeChat,
  type Dialect,
  type ModelCatalog,
} from "dsh-openai-compatible";
import { DEFAULT_GEMINI_MODEL, GEMINI_MODELS, GeminiAdapter, assertGeminiWire, lookupGeminiModel, serializeRequest as serializeGemini } from "dsh-gemini";
import { DEFAULT_RESPONSES_MODEL, RESPONSES_MODELS, ResponsesAdapter, lookupResponsesModel, responsesOptionsOfWire, serializeRequest as serializeResponses } from "dsh-openai-responses";
import { CliError, EXIT } from "./cli-error.js";

/** Which HTTP API a provider speaks: Chat Completions in a dialect, Anthropic's Messages API, OpenAI's Responses API, or Google's Gemini API. */
export type WireApi = { readonly api: "chat-completions"; readonly dialect: Dialect } | { readonly api: "messages" } | { readonly api: "responses" } | { readonly api: "gemini" };

/** What a catalog says of a model, as far as the CLI uses it. */
export interface CataloguedModel {
  readonly defaultReasoningEffort?: ReasoningEffort | undefined;
}

/** What the CLI knows about each provider it can run against. */
export interface ProviderProfile {
  readonly name: "sim" | "sim-anthropic" | "sim-openai-responses" | "sim-gemini" | "deepseek" | "openai" | "openai-responses" | "anthropic" | "gemini";
  readonly wire: WireApi;
  readonly baseUrl: string | undefined;
  readonly defaultModel: string;
  readonly keyVariables: readonly string[];
  /** Whether the embedded simulator serves this provider when no `--base-url` is given. */
  readonly simulated: boolean;
  /** The model's catalog entry (`undefined` when unknown; a retired name throws `LLM_MODEL_RETIRED`); absent without a catalog. */
  readonly lookup: ((model: string) => CataloguedModel | undefined) | undefined;
  /** The adapter for this provider. */
  adapter(options: { readonly baseUrl: string; readonly apiKey: string | undefined; readonly idleTimeoutMs: number }): LlmAdapter;
}

function chatProfile(name: "sim" | "deepseek" | "openai", dialect: Dialect, baseUrl: string | undefined, defaultModel: string, keyVariables: readonly string[], catalog: ModelCatalog | undefined, modelDefaults: ModelDefaults): ProviderProfile {
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
  "openai-responses": responsesProfile("openai-responses"),
  anthropic: messagesProfile("anthropic"),
  gemini: geminiProfile("gemini"),
};

/** The profile named `name`, or a usage error listing the choices. */
export function providerProfile(name: string): ProviderProfile {
  if (Object.hasOwn(PROVIDERS, name)) return PROVIDERS[name as ProviderProfile["name"]];
  throw new CliError(`unknown provider ${name}: choose ${Object.keys(PROVIDERS).join(", ")}`, EXIT.usage);
}

/**
 * The wire API a logged request was sent with: the header's logged wire profile when it has one, else
 * (a log written before headers carried it) what this CLI's table says of the logged provider.
 */
export function wireOf(rebuilt: Pick<LoggedRequest, "snapshot">): WireApi {
  const { wire } = rebuilt.snapshot.header;
  if (wire?.api === "messages") return { api: "messages" };
  if (wire?.api === "responses") return { api: "responses" };
  if (wire?.api === "gemini") return { api: "gemini" };
  if (wire !== undefined) return { api: "chat-completions", dialect: serializeOptionsOfChatWire(wire).dialect };
  // The request's config is the header's: its provider is the one the request was built for.
  const provider = rebuilt.snapshot.header.config.provider;
  if (Object.hasOwn(PROVIDERS, provider)) return PROVIDERS[provider as ProviderProfile["name"]].wire;
  throw new CliError(`the log names provider ${provider} and no wire profile, so this CLI cannot tell how it was serialized`, EXIT.usage);
}

/** A rebuilt request and the header snapshot it carried. */
export type LoggedRequest = Pick<ReconstructedRequest, "request" | "snapshot">;

/** The exact body a logged request was sent as, from its logged wire profile (or, for an older log, its provider's table entry). */
export function wireBody(rebuilt: LoggedRequest, attachments: AttachmentStore | undefined): Promise<string> {
  const { request, snapshot } = rebuilt;
  const wire = wireOf(rebuilt);
  if (wire.api === "chat-completions") return serializeChat(request, { dialect: wire.dialect, attachments });
  if (wire.api === "responses") return serializeResponses(request, { ...responsesOptionsOfWire(snapshot.header.wire), attachments });
  if (wire.api === "gemini") {
    if (snapshot.header.wire !== undefined) assertGeminiWire(snapshot.header.wire);
    return serializeGemini(request, { attachments });
  }
  const logged = snapshot.header.wire === undefined ? {} : serializeOptionsOfMessagesWire(request.config.model, snapshot.header.wire);
  return serializeMessages(request, { ...logged, attachments });
}

/** The SHA-256 of an exact request body, in hex: what a proof, a span or a what-if compares instead of the body. */
export function wireSha256(body: string): string {
  return createHash("sha256").update(body).digest("hex");
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
