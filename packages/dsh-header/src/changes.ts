import { jsonEquals, type JsonValue } from "dsh-llm";
import type { EpochHeader } from "./header.js";

const show = (value: unknown) => JSON.stringify(value) ?? "unset";

function keyChanges(before: object | undefined, after: object | undefined, prefix: string): string[] {
  const b = (before ?? {}) as Record<string, JsonValue>;
  const a = (after ?? {}) as Record<string, JsonValue>;
  const changes: string[] = [];
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (!jsonEquals(b[key], a[key])) changes.push(`${prefix}${key} ${show(b[key])} → ${show(a[key])}`);
  }
  return changes;
}

/**
 * Each difference between two headers, one line each, for a person: config values
 * (`model "a" → "b"`), adapter-default provenance (`adapterDefaults.maxTokens 16384 → unset`), the
 * adapter's wire profile (`wire.dialect "deepseek" → "openai"`), and tools added, removed, reordered, or changed in description or parameters. Equal headers give none.
 */
export function describeHeaderChanges(before: EpochHeader, after: EpochHeader): string[] {
  const changes = [
    ...keyChanges(before.config, after.config, ""),
    ...keyChanges(before.adapterDefaults, after.adapterDefaults, "adapterDefaults."),
    ...keyChanges(before.wire, after.wire, "wire."),
  ];
  const beforeTools = before.tools ?? [];
  const afterTools = after.tools ?? [];
  const names = (tools: typeof beforeTools) => tools.map((tool) => tool.name);
  const added = names(afterTools).filter((name) => !names(beforeTools).includes(name));
  const removed = names(beforeTools).filter((name) => !names(afterTools).includes(name));
  if (added.length > 0) changes.push(`tools added: ${added.join(", ")}`);
  if (removed.length > 0) changes.push(`tools removed: ${removed.join(", ")}`);
  for (const tool of afterTools) {
    const old = beforeTools.find((candidate) => candidate.name === tool.name);
    if (old === undefined) continue;
    if (old.description !== tool.description) changes.push(`tool ${tool.name}: description changed`);
    if (!jsonEquals(old.parameters as JsonValue, tool.parameters as JsonValue)) changes.push(`tool ${tool.name}: parameters changed`);
  }
  const kept = names(afterTools).filter((name) => !added.includes(name));
  if (!jsonEquals(kept, names(beforeTools).filter((name) => !removed.includes(name)))) changes.push("tools reordered");
  return changes;
}

/** A setting whose change between two headers breaks a provider's prefix cache, in provider-neutral words. */
export type HeaderCause = "provider" | "model" | "tools" | "effort" | "cache-key";

/**
 * The settings that differ between two headers and reach the cached prefix: the provider, the model,
 * the tools, the reasoning effort (the caller's or the adapter's default) and a `prompt_cache_key`
 * extension. Other differences (an output limit, a temperature) leave the prefix as it was.
 */
export function headerCauses(before: EpochHeader, after: EpochHeader): HeaderCause[] {
  const [a, b] = [before.config, after.config];
  const causes: HeaderCause[] = [];
  if (a.provider !== b.provider) causes.push("provider");
  if (a.model !== b.model) causes.push("model");
  if (!jsonEquals((before.tools ?? []) as JsonValue, (after.tools ?? []) as JsonValue)) causes.push("tools");
  if ((a.reasoningEffort ?? before.adapterDefaults?.reasoningEffort) !== (b.reasoningEffort ?? after.adapterDefaults?.reasoningEffort)) causes.push("effort");
  if (a.extensions?.prompt_cache_key !== b.extensions?.prompt_cache_key) causes.push("cache-key");
  return causes;
}
