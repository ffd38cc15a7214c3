import { LlmError, type JsonObject } from "dsh-llm";
import type { ClaudeModelInfo } from "./catalog.js";
import type { SerializeOptions } from "./serialize.js";

const INFO_KEYS = { contextWindow: "number", maxOutputTokens: "number", minCacheableTokens: "number", thinking: "string", xhighEffort: "boolean", temperature: "boolean" } as const;

/**
 * The wire profile of the Messages adapter for a model: the catalog's rules for it, when the catalog
 * knows it, and `automaticCache: true` for an endpoint that ignores `cache_control` and caches prefixes
 * on its own (DeepSeek's Anthropic-format API), so a cache report reads its misses by that endpoint's rules.
 */
export function messagesWireProfile(info: ClaudeModelInfo | undefined, automaticCache = false): JsonObject {
  // The price shapes no body: it stays out of the profile, so a new price is no header change.
  const profile: JsonObject = info === undefined ? { api: "messages" } : { api: "messages", model: rulesOf(info) };
  return automaticCache ? { ...profile, automaticCache: true } : profile;
}

/** The catalog fields that shape a body, and only those. */
function rulesOf(info: ClaudeModelInfo): JsonObject {
  const { contextWindow, maxOutputTokens, minCacheableTokens, thinking, xhighEffort, temperature } = info;
  return { contextWindow, maxOutputTokens, minCacheableTokens, thinking, xhighEffort, temperature };
}

function invalid(wire: JsonObject | undefined): LlmError {
  return new LlmError("LLM_INVALID_REQUEST", `the header's wire profile ${JSON.stringify(wire) ?? "(none)"} is not a Messages API profile`, { retryable: false });
}

/**
 * The serialize options a logged wire profile (a header's `wire`) stands for: a catalog holding just
 * `model`'s logged rules, so a rebuild uses what the sending adapter used, whatever catalog the
 * rebuilding process has. A profile that is not a Messages one is `LLM_INVALID_REQUEST`.
 */
export function serializeOptionsOfWire(model: string, wire: JsonObject | undefined): Pick<SerializeOptions, "catalog"> {
  if (wire?.api !== "messages") throw invalid(wire);
  const info = wire.model;
  if (info === undefined) return { catalog: { models: {}, retired: {} } };
  if (info === null || typeof info !== "object" || Array.isArray(info)) throw invalid(wire);
  const fields = info as Readonly<Record<string, unknown>>;
  for (const [key, type] of Object.entries(INFO_KEYS)) if (typeof fields[key] !== type) throw invalid(wire);
  if (fields.thinking !== "adaptive" && fields.thinking !== "budget") throw invalid(wire);
  return { catalog: { models: { [model]: info as unknown as ClaudeModelInfo }, retired: {} } };
}
