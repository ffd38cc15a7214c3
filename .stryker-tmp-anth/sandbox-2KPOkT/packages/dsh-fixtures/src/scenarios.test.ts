import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createAgentRegistry, forkPoints, forkSeed, type CompactionOptions } from "dsh-agent";
import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { EventLog } from "dsh-log";
import { makePng } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { checkFixture, refreshFixture } from "./check.js";
import { recordFixture } from "./record.js";
import { formatFixtureReport } from "./report.js";
import { EchoModel, echoAgent, echoSession, fixtureDir, sessionHeader } from "./test-support/session.js";

const modelDefaults = () => ({ maxTokens: 1000 });
const compaction: CompactionOptions = { contextWindow: 1000, threshold: 0.5, keepRecent: 2, trim: { maxChars: 8, keepRecent: 1 } };

async function types(dir: string): Promise<string[]> {
  return (await readFile(join(dir, "session.jsonl"), "utf8")).trimEnd().split("\n").slice(1).map((line) => (JSON.parse(line) as { type: string }).type);
}

describe("fixtures of the sessions the loop writes", () => {
  it("replays trims and compactions under pressure exactly, and shows a changed trim setting as new cache breaks", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = echoAgent(log, new EchoModel(), { compaction });
    for (const input of ["one", "two", "three", "four"]) await agent.run(input);
    const dir = await fixtureDir();
    await recordFixture({ header: sessionHeader("live"), events: log.slice() }, dir, { agent: { compaction } });
    const logged = await types(dir);
    expect(logged).toContain("compaction/summary");
    expect((await readFile(join(dir, "session.jsonl"), "utf8")).match(/"replaces"/g)?.length).toBeGreaterThan(1);
    expect(logged.filter((type) => type === "request/header").length).toBeGreaterThan(1); // series snapshots after replaces
    expect(formatFixtureReport(await checkFixture(dir, { modelDefaults }))).toMatch(/unchanged/);

    // Trimming nothing any more: the replay compacts where it trimmed, so breaks move.
    const manifestPath = join(dir, "fixture.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { agent: { compaction: CompactionOptions } };
    const { trim: _trim, ...withoutTrim } = manifest.agent.compaction;
    await writeFile(manifestPath, JSON.stringify({ ...manifest, agent: { compaction: withoutTrim } }));
    const report = await checkFixture(dir, { modelDefaults });
    expect(report.ok).toBe(false);
    expect(report.breaks.added.length + report.breaks.removed.length + report.requests.differences.length).toBeGreaterThan(0);
  });

  it("replays a resume with a model switch as a new loop instance with the recorded selection", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const model = new EchoModel();
    await echoAgent(log, model).run("first");
    await echoAgent(log, model, { config: { provider: "scripted", model: "model-b" } }).run("second");
    const dir = await fixtureDir();
    const manifest = await recordFixture({ header: sessionHeader("live"), events: log.slice() }, dir);
    expect(manifest.headers.map((header) => [header.reason, header.revision])).toEqual([["initial", "r1"], ["resume", "r1"]]);
    const report = await checkFixture(dir, { modelDefaults });
    expect(report.ok).toBe(true);
    expect(report.requests.recorded).toBe(4);
    // The resume's request does not extend the previous one: the model changed. The break is recorded, not new.
    const changed = await checkFixture(dir, { modelDefaults: (_provider, model) => ({ maxTokens: model === "model-b" ? 500 : 1000 }) });
    expect(changed.requests.differences.map((difference) => difference.number)).toEqual([3, 4]);
    expect(changed.requests.differences[0]!.header).toEqual(["maxTokens 1000 → 500", "adapterDefaults.maxTokens 1000 → 500"]);
  });

  it("replays a fork with an image from its seed, with the image copied into the fixture", async () => {
    const parent = new EventLog({ registry: createAgentRegistry() });
    const model = new EchoModel();
    await echoAgent(parent, model).run("parent turn");
    await echoAgent(parent, model).run("dropped turn");
    const seed = forkSeed(parent.slice(), forkPoints(parent.slice())[0]!);
    const fork = new EventLog({ registry: createAgentRegistry(), events: seed });
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(4, 3));
    await echoAgent(fork, model).run([{ type: "text", text: "what is this?" }, { type: "image", image }]);
    const dir = await fixtureDir();
    const manifest = await recordFixture({ header: sessionHeader("fork-live", { sessionId: "parent-live", seedLength: seed.length }), events: fork.slice() }, dir, { attachments: store });
    expect(manifest.headers.map((header) => header.reason)).toEqual(["resume"]);
    const head = JSON.parse((await readFile(join(dir, "session.jsonl"), "utf8")).split("\n")[0]!) as object;
    expect(head).toEqual({ format: "dsh-log", version: 1, sessionId: "echo", createdAt: Date.UTC(2026, 0, 1), parent: { sessionId: "echo-parent", seedLength: seed.length } });
    expect(await readdir(join(dir, "objects", "sha256"))).toHaveLength(1);
    expect((await checkFixture(dir, { modelDefaults })).ok).toBe(true);
    await rm(join(dir, "objects"), { recursive: true });
    await expect(checkFixture(dir, { modelDefaults })).rejects.toMatchObject({ code: "ATTACHMENT_MISSING" });
  });

  it("writes the same bytes for the same session run under another id, at another time, in another directory", async () => {
    const first = await fixtureDir();
    const second = await fixtureDir();
    await recordFixture(await echoSession(), first, { cwd: process.cwd() });
    const other = await echoSession();
    const moved = JSON.parse(JSON.stringify(other.events).replaceAll(process.cwd(), "/elsewhere/project")) as typeof other.events;
    await recordFixture({ header: { ...other.header, sessionId: "another-id", createdAt: 5 }, events: moved }, second, { cwd: "/elsewhere/project" });
    for (const file of ["session.jsonl", "fixture.json", "prompts/r1.txt", "tools/r1.json"]) {
      expect(await readFile(join(second, file), "utf8")).toBe(await readFile(join(first, file), "utf8"));
    }
  });

  it("refuses what a keyless replay cannot reproduce, and a directory that is not empty, writing nothing", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = echoAgent(log, new EchoModel());
    agent.on("agent/pre-step", () => ({ action: "reject", reason: "not now" }));
    await agent.run("blocked");
    const dir = await fixtureDir();
    await expect(recordFixture({ header: sessionHeader("live"), events: log.slice() }, dir)).rejects.toMatchObject({ code: "FIXTURE_UNREPLAYABLE", message: expect.stringMatching(/rejected turn 0 step 0/) });
    await expect(readdir(dir)).rejects.toMatchObject({ code: "ENOENT" });
    await recordFixture(await echoSession(), dir);
    await expect(recordFixture(await echoSession(), dir)).rejects.toMatchObject({ code: "FIXTURE_EXISTS" });
    expect((await refreshFixture(dir, { modelDefaults })).ok).toBe(true);
  });
});
