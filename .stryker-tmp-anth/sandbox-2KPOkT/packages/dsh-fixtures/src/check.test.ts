import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assertFixture, checkFixture, refreshFixture } from "./check.js";
import { FixtureError } from "./errors.js";
import { loadFixture } from "./fixture-dir.js";
import { recordFixture } from "./record.js";
import { formatFixtureReport } from "./report.js";
import { createAgentRegistry } from "dsh-agent";
import { EventLog } from "dsh-log";
import { EchoModel, echoAgent, echoSession, echoTool, fixtureDir, sessionHeader, SYSTEM_PROMPT } from "./test-support/session.js";

const modelDefaults = () => ({ maxTokens: 1000 });

describe("a recorded fixture", () => {
  it("replays keyless to exactly the same log, so the check passes", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir, { cwd: process.cwd() });
    const report = await checkFixture(dir, { modelDefaults });
    expect(formatFixtureReport(report)).toBe("fixture echo: unchanged (4 requests)");
    expect(report.ok).toBe(true);
    await expect(assertFixture(dir, { modelDefaults })).resolves.toBeUndefined();
    // Without the adapter's defaults, those the fixture recorded are assumed.
    expect((await checkFixture(dir)).ok).toBe(true);
  });

  it("takes its replay options from a function of the loaded fixture", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir, { cwd: process.cwd() });
    const seen: string[] = [];
    const chosen = (fixture: { readonly manifest: { readonly name: string; readonly tools: string } }) => {
      seen.push(`${fixture.manifest.name}/${fixture.manifest.tools}`);
      return { modelDefaults, systemPrompt: () => SYSTEM_PROMPT.replace("briefly", "in detail") };
    };
    const report = await checkFixture(dir, chosen);
    expect(seen).toEqual(["echo/recorded"]);
    expect(report.requests.differences.map((difference) => difference.nodes.map((change) => change.node))).toEqual([[0], [0], [0], [0]]);
    await expect(assertFixture(dir, chosen)).rejects.toMatchObject({ code: "FIXTURE_MISMATCH" });
    expect((await refreshFixture(dir, chosen)).ok).toBe(false);
    expect(await readFile(join(dir, "prompts/r1.txt"), "utf8")).toBe(SYSTEM_PROMPT.replace("briefly", "in detail"));
    expect((await checkFixture(dir, chosen)).ok).toBe(true);
    expect(seen).toHaveLength(4);
  });

  it("names every changed request, the node, and the cache consequence when the prompt sidecar is edited; refresh makes it pass", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir, { cwd: process.cwd() });
    await writeFile(join(dir, "prompts/r1.txt"), SYSTEM_PROMPT.replace("briefly", "in detail"));
    const report = await checkFixture(dir, { modelDefaults });
    expect(report.ok).toBe(false);
    expect(report.requests.differences.map((difference) => difference.number)).toEqual([1, 2, 3, 4]);
    expect(report.requests.differences[0]!.nodes.map((change) => [change.node, change.change])).toEqual([[0, "replaced"]]);
    expect(report.breaks).toEqual({ added: [], removed: [] });
    const text = formatFixtureReport(report);
    expect(text.split("\n")[0]).toBe("fixture echo: 4 of 4 requests differ, 1 log event differs");
    expect(text).toContain("request 1 (turn 0 step 0, dispatched at seq 5):\n  node 0 (system prompt) replaced:\n    - Answer briefly.\n    + Answer in detail.\n  cache: the prompt differs from node 0 (the system prompt)");
    expect(text).toContain("requests 2-4: the same change");
    await expect(assertFixture(dir, { modelDefaults })).rejects.toMatchObject({ code: "FIXTURE_MISMATCH", message: text });

    const refreshed = await refreshFixture(dir, { modelDefaults });
    expect(refreshed.requests.differences).toHaveLength(4);
    expect((await checkFixture(dir, { modelDefaults })).ok).toBe(true);
    const log = await readFile(join(dir, "session.jsonl"), "utf8");
    expect(log).toContain("Answer in detail.");
    expect(log).not.toContain("Answer briefly.");
  });

  it("reports a tools sidecar edit as a header change that the cache cannot survive", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir);
    const tools = JSON.parse(await readFile(join(dir, "tools/r1.json"), "utf8")) as { description: string }[];
    tools[0]!.description = "Repeat the text";
    await writeFile(join(dir, "tools/r1.json"), JSON.stringify(tools));
    const report = await checkFixture(dir, { modelDefaults });
    expect(report.requests.differences[0]).toMatchObject({ header: ["tool echo: description changed"], nodes: [] });
    expect(report.requests.differences[0]!.cache).toMatch(/^the tools differ/);
  });

  it("compares the current code's tools with the pinned sidecar when they run for real", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir, { cwd: process.cwd() });
    expect((await checkFixture(dir, { modelDefaults, tools: () => [echoTool()] })).ok).toBe(true);
    const report = await checkFixture(dir, { modelDefaults, tools: () => [echoTool("Echo the words back")] });
    expect(report.sidecars).toEqual(["tools/r1.json differs from the tools the replay offered: tool echo: description changed"]);
    expect(report.requests.differences).toHaveLength(4);
  });

  it("shows a change of the adapter's defaults as a header field, with the prompt untouched", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir);
    const report = await checkFixture(dir, { modelDefaults: () => ({ maxTokens: 2000 }) });
    expect(report.requests.differences[0]).toMatchObject({ header: ["maxTokens 1000 → 2000", "adapterDefaults.maxTokens 1000 → 2000"], nodes: [] });
    expect(report.requests.differences[0]!.cache).toBe("the prompt is the same; only call settings differ");
  });

  it("absorbs a log-only difference on refresh: requests equal, one event differs", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir);
    const path = join(dir, "session.jsonl");
    const lines = (await readFile(path, "utf8")).split("\n");
    lines[1] = lines[1]!.replace(/"time":\d+/, '"time":1');
    await writeFile(path, lines.join("\n"));
    const report = await checkFixture(dir, { modelDefaults });
    expect(report).toMatchObject({ ok: false, requests: { differences: [] }, log: { differing: 1, examples: ["seq 0: turn/start with other data"] } });
    await refreshFixture(dir, { modelDefaults });
    expect((await checkFixture(dir, { modelDefaults })).ok).toBe(true);
  });

  it("refuses to refresh when the replay needs answers the fixture does not have", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir);
    const manifest = JSON.parse(await readFile(join(dir, "fixture.json"), "utf8")) as { agent: object };
    manifest.agent = { maxSteps: 1 };
    await writeFile(join(dir, "fixture.json"), JSON.stringify(manifest));
    // One step per turn: the replay asks for fewer answers; the fixture's second answers go unused.
    const report = await checkFixture(dir, { modelDefaults });
    expect(report.replay.unusedAnswers).toBe(2);
    expect(formatFixtureReport(report)).toContain("replay: 2 recorded answers and 0 recorded summaries never asked for");
  });

  it("loads what it wrote and refuses a directory that is not a fixture", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir);
    const fixture = await loadFixture(dir);
    expect(fixture.manifest).toMatchObject({ format: "dsh-fixture", version: 1, name: "echo", tools: "recorded", revisions: [{ id: "r1" }] });
    expect(fixture.manifest.headers).toEqual([{ seq: 4, reason: "initial", revision: "r1" }]);
    await expect(loadFixture(join(dir, "prompts"))).rejects.toThrow(FixtureError);
  });
});

describe("sidecar differences", () => {
  it("names a collapsed revision, the header that now pins another one, and the cache break that vanished", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    await echoAgent(log, new EchoModel()).run("one");
    await echoAgent(log, new EchoModel(), { systemPrompt: "Another prompt." }).run("two");
    const dir = await fixtureDir();
    const manifest = await recordFixture({ header: sessionHeader("live"), events: log.slice() }, dir);
    expect(manifest.revisions).toEqual([{ id: "r1" }, { id: "r2" }]);
    expect(await readFile(join(dir, "prompts/r2.txt"), "utf8")).toBe("Another prompt.");
    await writeFile(join(dir, "prompts/r2.txt"), SYSTEM_PROMPT);
    const report = await checkFixture(dir, { modelDefaults });
    const resumeSeq = manifest.headers[1]!.seq;
    expect(report.sidecars).toEqual(["the fixture pins 2 revision(s), the replay uses 1", `header snapshot 2 (seq ${resumeSeq - 1}): the fixture pins resume → r2, the replay resume → r1`]);
    expect(report.breaks).toEqual({ added: [], removed: [{ number: 3, why: "node 0 (system prompt) was replaced" }] });
    expect(report.requests.differences.map((difference) => difference.number)).toEqual([3, 4]);

    // A pinned prompt that is not what the replay sent (the code's prompt differs) is shown as a diff.
    await writeFile(join(dir, "prompts/r2.txt"), "Another prompt.");
    const code = await checkFixture(dir, { modelDefaults, systemPrompt: (revision) => (revision.id === "r2" ? "A third prompt." : revision.prompt) });
    expect(code.sidecars).toEqual(["prompts/r2.txt differs from the prompt the replay sent:\n  - Another prompt.\n  + A third prompt."]);

    // Refresh with the first prompt everywhere: one revision is left, and the other's sidecars go.
    await writeFile(join(dir, "prompts/r2.txt"), SYSTEM_PROMPT);
    await refreshFixture(dir, { modelDefaults });
    expect(await readdir(join(dir, "prompts"))).toEqual(["r1.txt"]);
    expect(await readdir(join(dir, "tools"))).toEqual(["r1.json"]);
    expect((await checkFixture(dir, { modelDefaults })).ok).toBe(true);
  });
});

describe("a damaged fixture", () => {
  it("is refused with FIXTURE_INVALID naming the file", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir);
    const log = join(dir, "session.jsonl");
    const text = await readFile(log, "utf8");
    await writeFile(log, `${text}{"seq":26,"ty`);
    await expect(loadFixture(dir)).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: `${log} ends in a torn line 28` });
    await writeFile(log, text.replace('"turn":0}', '"turn":"zero"}'));
    await expect(loadFixture(dir)).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: expect.stringMatching(new RegExp(`^${log}: `)) });
    await writeFile(log, text);
    await rm(join(dir, "prompts/r1.txt"));
    await expect(loadFixture(dir)).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: `${join(dir, "prompts/r1.txt")} is missing` });
    await mkdir(join(dir, "prompts/r1.txt"));
    await expect(loadFixture(dir)).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: `cannot read ${join(dir, "prompts/r1.txt")}: not a regular file` });
  });
});
