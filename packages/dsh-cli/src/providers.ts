import type { ModelDefaults } from "dsh-llm";
import { DEEPSEEK_MODELS, OPENAI_MODELS, type Dialect, type ModelCatalog } from "dsh-openai-compatible";
import { CliError, EXIT } from "./cli-error.js";

/** What the CLI knows about each provider it can run against. */
export interface ProviderProfile {
  readonly name: "sim" | "deepseek" | "openai";
  readonly dialect: Dialect;
  readonly baseUrl: string | undefined;
  readonly defaultModel: string;
  readonly keyVariables: readonly string[];
  /** The provider's models, whose defaults the adapter supplies; absent for the simulator. */
  readonly catalog: ModelCatalog | undefined;
  /** The defaults of every model, when there is no catalog. */
  readonly modelDefaults: ModelDefaults;
}

export const PROVIDERS: Readonly<Record<ProviderProfile["name"], ProviderProfile>> = {
  sim: { name: "sim", dialect: "deepseek", baseUrl: undefined, defaultModel: "sim-1", keyVariables: ["DSH_API_KEY"], catalog: undefined, modelDefaults: { maxTokens: 4096 } },
  deepseek: {
    name: "deepseek",
    dialect: "deepseek",
    baseUrl: "https://api.deepseek.com",
    defaultModel: "deepseek-v4-flash",
    keyVariables: ["DSH_API_KEY", "DEEPSEEK_API_KEY"],
    catalog: DEEPSEEK_MODELS,
    modelDefaults: {},
  },
  openai: {
    name: "openai",
    dialect: "openai",
    baseUrl: "https://api.openai.com/v1",
    defaultModel: "gpt-5.5",
    keyVariables: ["DSH_API_KEY", "OPENAI_API_KEY"],
    catalog: OPENAI_MODELS,
    modelDefaults: {},
  },
};

/** The profile named `name`, or a usage error listing the choices. */
export function providerProfile(name: string): ProviderProfile {
  if (name in PROVIDERS) return PROVIDERS[name as ProviderProfile["name"]];
  throw new CliError(`unknown provider ${name}: choose sim, deepseek or openai`, EXIT.usage);
}

/** The wire dialect a logged `config.provider` was sent with. */
export function dialectOf(provider: string): Dialect {
  if (provider in PROVIDERS) return PROVIDERS[provider as ProviderProfile["name"]].dialect;
  throw new CliError(`the log names provider ${provider}, which this CLI cannot serialize for`, EXIT.usage);
}

/** The first key found in the provider's environment variables. */
export function apiKeyFor(profile: ProviderProfile, env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const variable of profile.keyVariables) {
    const value = env[variable];
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}
