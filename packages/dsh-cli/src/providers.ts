import type { ModelDefaults } from "dsh-llm";
import type { Dialect } from "dsh-openai-compatible";
import { CliError, EXIT } from "./cli-error.js";

/** What the CLI knows about each provider it can run against. */
export interface ProviderProfile {
  readonly name: "sim" | "deepseek" | "openai";
  readonly dialect: Dialect;
  readonly baseUrl: string | undefined;
  readonly defaultModel: string;
  readonly keyVariables: readonly string[];
  readonly modelDefaults: ModelDefaults;
}

export const PROVIDERS: Readonly<Record<ProviderProfile["name"], ProviderProfile>> = {
  sim: { name: "sim", dialect: "deepseek", baseUrl: undefined, defaultModel: "sim-1", keyVariables: ["DSH_API_KEY"], modelDefaults: { maxTokens: 4096 } },
  deepseek: {
    name: "deepseek",
    dialect: "deepseek",
    baseUrl: "https://api.deepseek.com",
    defaultModel: "deepseek-chat",
    keyVariables: ["DSH_API_KEY", "DEEPSEEK_API_KEY"],
    modelDefaults: {},
  },
  openai: {
    name: "openai",
    dialect: "openai",
    baseUrl: "https://api.openai.com/v1",
    defaultModel: "gpt-4o-mini",
    keyVariables: ["DSH_API_KEY", "OPENAI_API_KEY"],
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
