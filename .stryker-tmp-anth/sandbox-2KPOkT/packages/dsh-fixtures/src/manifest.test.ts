import { describe, expect, it } from "vitest";
import { parseToolsSidecar, serializeToolsSidecar } from "./fixture-dir.js";
import { parseManifest, serializeManifest, type FixtureManifest } from "./manifest.js";

const manifest: FixtureManifest = {
  format: "dsh-fixture",
  version: 1,
  name: "demo",
  tools: "real",
  workdir: "workdir",
  agent: { maxSteps: 4, compaction: { contextWindow: 1000, trim: { maxChars: 10 } } },
  revisions: [{ id: "r1" }],
  headers: [{ seq: 4, reason: "initial", revision: "r1" }],
};

describe("the manifest", () => {
  it("round-trips through its text, keys in schema order", () => {
    const text = serializeManifest(manifest);
    expect(text.endsWith("}\n")).toBe(true);
    expect(Object.keys(JSON.parse(text) as object)).toEqual(["format", "version", "name", "tools", "workdir", "agent", "revisions", "headers"]);
    expect(parseManifest(text, "m")).toEqual(manifest);
    expect(serializeManifest({ ...manifest, tools: "recorded", workdir: undefined } as unknown as FixtureManifest)).not.toContain("workdir");
  });

  it("refuses bad text with FIXTURE_INVALID naming the file and the first problem", () => {
    const refuse = (text: string) => expect(() => parseManifest(text, "dir/fixture.json"));
    refuse("{").toThrow(/^dir\/fixture\.json is not JSON: /);
    refuse(JSON.stringify({ ...manifest, version: 2 })).toThrow(/^dir\/fixture\.json: version/);
    refuse(JSON.stringify({ ...manifest, workdir: undefined })).toThrow("dir/fixture.json: real tools need a workdir");
    refuse(JSON.stringify({ ...manifest, workdir: "../outside" })).toThrow(/workdir is a relative path inside the fixture/);
    refuse(JSON.stringify({ ...manifest, name: "a..b" })).toThrow(/no '\.\.' in a fixture name/);
    refuse(JSON.stringify({ ...manifest, headers: [{ seq: 4, reason: "initial", revision: "r2" }] })).toThrow("dir/fixture.json: header at seq 4 names revision r2, which is not listed");
    refuse(JSON.stringify({ ...manifest, revisions: [{ id: "r0" }] })).toThrow(/revision ids are r1, r2/);
    refuse(JSON.stringify({ ...manifest, extra: 1 })).toThrow(/FIXTURE|extra|Unrecognized/);
    expect(() => parseManifest("{", "x")).toThrow(expect.objectContaining({ code: "FIXTURE_INVALID" }));
  });
});

describe("the tools sidecar", () => {
  it("round-trips the schemas and refuses what is not a tool list", () => {
    const tools = [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    expect(parseToolsSidecar(serializeToolsSidecar(tools), "t")).toEqual(tools);
    expect(() => parseToolsSidecar('[{"name":"bad name","description":"","parameters":{}}]', "tools/r1.json")).toThrow(/^tools\/r1\.json: .*tool names are 1-64 characters/);
    expect(() => parseToolsSidecar("nope", "tools/r1.json")).toThrow(/^tools\/r1\.json is not JSON/);
  });
});
