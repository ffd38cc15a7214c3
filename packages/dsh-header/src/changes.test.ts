import { describe, expect, it } from "vitest";
import { describeHeaderChanges, headerCauses } from "./changes.js";
import type { EpochHeader } from "./header.js";

const read = { name: "read_file", description: "Read a file", parameters: { type: "object" } };
const list = { name: "list_dir", description: "List a directory", parameters: { type: "object" } };
const base: EpochHeader = { config: { provider: "sim", model: "sim-1", maxTokens: 100 }, adapterDefaults: { maxTokens: 100 }, tools: [read, list] };

describe("describeHeaderChanges", () => {
  it("names nothing for equal headers", () => {
    expect(describeHeaderChanges(base, structuredClone(base))).toEqual([]);
  });

  it("names changed, added and removed config values and provenance", () => {
    const after: EpochHeader = { ...base, config: { provider: "sim", model: "sim-2", temperature: 0 }, adapterDefaults: {} };
    expect(describeHeaderChanges(base, after)).toEqual([
      'model "sim-1" → "sim-2"',
      "maxTokens 100 → unset",
      "temperature unset → 0",
      "adapterDefaults.maxTokens 100 → unset",
    ]);
  });

  it("names a changed wire profile field by field", () => {
    const before: EpochHeader = { ...base, wire: { api: "chat-completions", dialect: "deepseek" } };
    expect(describeHeaderChanges(before, { ...base, wire: { api: "chat-completions", dialect: "openai" } })).toEqual(['wire.dialect "deepseek" → "openai"']);
    expect(describeHeaderChanges(before, base)).toEqual(['wire.api "chat-completions" → unset', 'wire.dialect "deepseek" → unset']);
  });

  it("names tools added, removed, reordered and changed, by name", () => {
    const write = { name: "write_file", description: "Write", parameters: { type: "object" } };
    expect(describeHeaderChanges(base, { ...base, tools: [list, read, write] })).toEqual(["tools added: write_file", "tools reordered"]);
    expect(describeHeaderChanges(base, { ...base, tools: [list] })).toEqual(["tools removed: read_file"]);
    expect(describeHeaderChanges(base, { config: base.config, adapterDefaults: { maxTokens: 100 } })).toEqual(["tools removed: read_file, list_dir"]);
    const changed = { ...read, description: "Read a text file", parameters: { type: "object", required: ["path"] } };
    expect(describeHeaderChanges(base, { ...base, tools: [changed, list] })).toEqual(["tool read_file: description changed", "tool read_file: parameters changed"]);
  });
});

describe("headerCauses", () => {
  it("names nothing for equal headers, nor for settings outside the cached prefix", () => {
    expect(headerCauses(base, structuredClone(base))).toEqual([]);
    expect(headerCauses(base, { ...base, config: { ...base.config, maxTokens: 5, temperature: 1 } })).toEqual([]);
  });

  it("names each setting that reaches the prefix, in a fixed order", () => {
    const after: EpochHeader = {
      config: { provider: "other", model: "sim-2", reasoningEffort: "high", extensions: { prompt_cache_key: "k" } },
      tools: [list, read],
    };
    expect(headerCauses(base, after)).toEqual(["provider", "model", "tools", "effort", "cache-key"]);
    expect(headerCauses(base, { ...base, tools: [read, { ...list, description: "ls" }] })).toEqual(["tools"]);
    expect(headerCauses({ config: base.config }, { ...base, tools: [] })).toEqual([]);
  });

  it("compares the effort sent, whether the caller gave it or the adapter defaulted it", () => {
    const given: EpochHeader = { ...base, config: { ...base.config, reasoningEffort: "high" } };
    const defaulted: EpochHeader = { ...base, adapterDefaults: { reasoningEffort: "high" } };
    expect(headerCauses(given, defaulted)).toEqual([]);
    expect(headerCauses(defaulted, { ...base, adapterDefaults: { reasoningEffort: "low" } })).toEqual(["effort"]);
    expect(headerCauses({ ...base, config: { ...base.config, extensions: { prompt_cache_key: "a" } } }, base)).toEqual(["cache-key"]);
  });
});
