import { describe, expect, it } from "vitest";
import { describeHeaderChanges } from "./changes.js";
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
