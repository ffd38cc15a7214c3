import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { createAgentRegistry, defineTool, reconstructRequests } from "dsh-agent";
import { LlmError, type FrozenGenerateOptions, type StreamChunk } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { SurfaceManager, userMessageEvent } from "dsh-surface";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkFixture } from "./check.js";
import { replayLog } from "./replay-log.js";
import { recordFixture } from "./record.js";
import { EchoModel, echoAgent, fixtureDir, sessionHeader } from "./test-support/session.js";

const retry = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 };

/** The messages of each request rebuilt from `events`, as JSON, keyed by turn and step. */
async function bodies(events: readonly LogEvent[]): Promise<string[]> {
  return (await reconstructRequests(events)).map((request) => `${request.turn}.${request.step} ${JSON.stringify(request.request.messages)}`);
}

/** The echo model, failing as told on given calls (1-based). */
class FailingModel extends EchoModel {
  #calls = 0;
  constructor(readonly failures: ReadonlyMap<number, LlmError>) {
    super();
  }
  override async *stream(request: FrozenGenerateOptions): AsyncGenerator<StreamChunk> {
    const failure = this.failures.get(++this.#calls);
    if (failure !== undefined) throw failure;
    yield* super.stream(request);
  }
}

async function record(log: EventLog, agent: Parameters<typeof recordFixture>[2] = {}) {
  const dir = await fixtureDir();
  const manifest = await recordFixture({ header: sessionHeader("live"), events: log.slice() }, dir, agent);
  return { dir, manifest };
}

describe("replaying what the model did", () => {
  it("serves recorded retryable failures before the answer, and a final failure as the failure", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const limited = () => new LlmError("LLM_RATE_LIMITED", "slow down", { status: 429 });
    const model = new FailingModel(new Map([[1, limited()], [2, limited()], [3, limited()], [6, new LlmError("LLM_BAD_REQUEST", "no", { status: 400 })]]));
    const agent = echoAgent(log, model, { retry });
    await agent.run("one");
    await expect(agent.run("two")).rejects.toMatchObject({ code: "LLM_BAD_REQUEST" });
    expect(log.slice().filter((event) => event.type === "request/retry")).toHaveLength(3);
    const { dir } = await record(log, { agent: { retry } });
    const report = await checkFixture(dir);
    expect(report.ok).toBe(true);
    expect(report.requests.recorded).toBe(3);
    // Three retries are more than the default policy allows: without the session's policy the replay gives up early.
    const path = join(dir, "fixture.json");
    const manifest = JSON.parse(await readFile(path, "utf8")) as { agent: object };
    await writeFile(path, JSON.stringify({ ...manifest, agent: {} }));
    const strict = await checkFixture(dir);
    expect(strict.ok).toBe(false);
    expect(strict.log.examples[0]).toMatch(/^seq \d+: the fixture has request\/retry, the replay step\/end$/);
  });

  it("replays what tools added to later steps: from the log with recorded tools, from the tools with real ones", async () => {
    // The tool adds context on its first call only (else the echo model would answer it with another call).
    const noting = (note: string) => {
      let added = false;
      const execute = ({ text }: { text: string }) => ({ content: text, additionalContexts: added ? [] : ((added = true), [note]) });
      return [defineTool({ name: "echo", description: "Echo the text back", parameters: z.object({ text: z.string(), path: z.string() }), execute })];
    };
    const log = new EventLog({ registry: createAgentRegistry() });
    await echoAgent(log, new EchoModel(), { tools: noting("remember this") }).run("one");
    expect(log.slice().filter((event) => event.type === "user/message").map((event) => (event.data as { source: string }).source)).toEqual(["user", "tool-context"]);
    const { dir } = await record(log);
    expect((await checkFixture(dir)).ok).toBe(true);
    expect((await checkFixture(dir, { tools: () => noting("remember this") })).ok).toBe(true);
    const other = await checkFixture(dir, { tools: () => noting("something else") });
    expect(other.requests.differences.map((difference) => difference.nodes.map((node) => `${node.node} ${node.change}`))).toEqual([["4 replaced"], ["4 replaced"]]);
  });

  it("offers other tool schemas still answering with the recorded results, and another call config per step", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    await echoAgent(log, new EchoModel()).run("one");
    const { dir } = await record(log);
    const schemas = await checkFixture(dir, { toolSchemas: (revision) => revision.tools.map((schema) => ({ ...schema, description: "Echo, described anew" })) });
    expect(schemas.requests.differences.map((difference) => [difference.header, difference.nodes.length])).toEqual([[["tool echo: description changed"], 0], [["tool echo: description changed"], 0]]);
    const model = await checkFixture(dir, { selection: (recorded, at) => ({ ...recorded, model: `model-${at.turn}.${at.step}` }) });
    expect(model.requests.differences.map((difference) => difference.header.join(" "))).toEqual([expect.stringContaining("model-0.0"), expect.stringContaining("model-0.1")]);
    expect(model.requests.differences.every((difference) => difference.nodes.length === 0)).toBe(true);
  });

  it("replays a log from a turn's start, with the seeded history edited before the first replayed turn", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = echoAgent(log, new EchoModel());
    await agent.run("one");
    await agent.run("two");
    const events = log.slice();
    const second = events.filter((event) => event.type === "turn/start")[1]!.seq;
    const same = await replayLog(events, second);
    expect(same.overruns).toEqual([]);
    expect(await bodies(same.events)).toEqual(await bodies(events));
    const firstInput = events.find((event) => event.type === "user/message")!;
    const edited = await replayLog(events, second, {}, {
      prepare: async (seeded) => {
        await seeded.append(new SurfaceManager(seeded).replaceInput({ start: firstInput.seq, end: firstInput.seq }, userMessageEvent.input({ content: [{ type: "text", text: "[removed]" }], source: "edit" })));
      },
    });
    const recorded = await bodies(events);
    const replayed = await bodies(edited.events);
    const turn = (list: string[], prefix: string) => list.filter((body) => body.startsWith(prefix));
    expect(turn(replayed, "0.")).toEqual(turn(recorded, "0."));
    expect(turn(replayed, "1.").length).toBe(turn(recorded, "1.").length);
    expect(turn(replayed, "1.").every((body) => body.includes('"[removed]"') && !body.includes('"text":"one"'))).toBe(true);
    expect(turn(recorded, "1.").every((body) => body.includes('"text":"one"'))).toBe(true);
  });

  it("serves each recorded tool result by the call's position, when a provider reused a call id across turns", async () => {
    /** The echo model, giving every call the same id, as a provider restarted per process may. */
    class ReusingModel extends EchoModel {
      override async *stream(request: FrozenGenerateOptions): AsyncGenerator<StreamChunk> {
        for await (const chunk of super.stream(request)) yield chunk.type === "tool-call-delta" ? { ...chunk, callId: "call-1" } : chunk;
      }
    }
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = echoAgent(log, new ReusingModel());
    await agent.run("one");
    await agent.run("two");
    const results = log.slice().filter((event) => event.type === "tool/result").map((event) => event.data as { callId: string; content: { text: string }[] });
    expect(results.map((result) => `${result.callId} ${result.content[0]!.text}`)).toEqual(["call-1 echo: one", "call-1 echo: two"]);
    const { dir } = await record(log);
    const report = await checkFixture(dir);
    expect(report.requests.differences).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it("refuses a step that ended without an answer it could replay", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const controller = new AbortController();
    const model = new (class extends EchoModel {
      override async *stream(): AsyncGenerator<StreamChunk> {
        controller.abort();
        yield { type: "text-delta", text: "par" };
        throw new LlmError("LLM_ABORTED", "aborted");
      }
    })();
    await echoAgent(log, model).run("hi", { signal: controller.signal });
    await expect(record(log)).rejects.toMatchObject({ code: "FIXTURE_UNREPLAYABLE", message: expect.stringMatching(/^turn 0 step 0 \(seq \d+\) ended aborted without an answer/) });
  });

  it("replays messages injected into later steps with their sources, series declared by a listener, and manual compactions and trims", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = echoAgent(log, new EchoModel());
    let injected = false;
    agent.on("agent/pre-step", ({ step }) => {
      if (step === 1 && !injected) {
        injected = true;
        agent.inject("also this", "inject");
      }
      return step === 1 ? { action: "enter", startsRequestSeries: true } : undefined;
    });
    await agent.run("one");
    await agent.run("two");
    await agent.trimToolResults({ maxChars: 3, keepRecent: 1 });
    await agent.compact({ keepRecent: 2 });
    await agent.run("three");
    const events = log.slice();
    expect(events.some((event) => event.type === "compaction/summary")).toBe(true);
    expect(events.some((event) => event.type === "user/message" && (event.data as { source: string }).source === "inject")).toBe(true);
    const { dir, manifest } = await record(log, { agent: { trim: { maxChars: 3, keepRecent: 1 }, compaction: { contextWindow: 100_000, keepRecent: 2 } } });
    expect(manifest.headers.map((header) => header.reason)).toContain("series");
    const report = await checkFixture(dir);
    expect(report.log).toEqual({ differing: 0, examples: [] });
    expect(report.ok).toBe(true);
  });
});

describe("recording with real tools", () => {
  it("copies the working directory (without .git, node_modules, .dsh) and runs the code's tools there", async () => {
    const work = await fixtureDir("work");
    await mkdir(join(work, ".git"), { recursive: true });
    await mkdir(join(work, "node_modules", "x"), { recursive: true });
    await writeFile(join(work, "notes.txt"), "hello");
    const fromWorkdir = (workdir: string) => [defineTool({ name: "echo", description: "Echo the text back", parameters: z.object({ text: z.string(), path: z.string() }), execute: async ({ path }) => readFile(resolve(workdir, path), "utf8").catch(() => "missing") })];
    const log = new EventLog({ registry: createAgentRegistry() });
    // The model names the file by its absolute path; the fixture keeps it relative to the working directory.
    await echoAgent(log, new EchoModel(work), { tools: fromWorkdir(work) }).run("read it");
    expect(JSON.stringify(log.slice())).toContain("hello");
    const dir = await fixtureDir();
    await recordFixture({ events: log.slice() }, dir, { cwd: work, tools: "real", workdir: work });
    expect((await readdir(join(dir, "workdir"))).sort()).toEqual(["notes.txt"]);
    expect(await readFile(join(dir, "session.jsonl"), "utf8")).not.toContain(work);
    expect((await checkFixture(dir, { tools: ({ workdir }) => fromWorkdir(workdir!) })).ok).toBe(true);
    await writeFile(join(dir, "workdir", "notes.txt"), "changed");
    const changed = await checkFixture(dir, { tools: ({ workdir }) => fromWorkdir(workdir!) });
    expect(changed.requests.differences.map((difference) => [difference.number, difference.nodes.map((node) => node.node)])).toEqual([[2, [3]]]);
  });

  it("shows a tool that starts printing absolute paths, which no canonical form hides", async () => {
    const work = await fixtureDir("work");
    await mkdir(work);
    await writeFile(join(work, "notes.txt"), "hello");
    const naming = (workdir: string, absolute: boolean) => [
      defineTool({ name: "echo", description: "Echo the text back", parameters: z.object({ text: z.string(), path: z.string() }), execute: ({ path }) => `found ${absolute ? resolve(workdir, path) : relative(workdir, resolve(workdir, path))}` }),
    ];
    const log = new EventLog({ registry: createAgentRegistry() });
    await echoAgent(log, new EchoModel(work), { tools: naming(work, false) }).run("read it");
    const dir = await fixtureDir();
    await recordFixture({ events: log.slice() }, dir, { cwd: work, tools: "real", workdir: work });
    expect((await checkFixture(dir, { tools: ({ workdir }) => naming(workdir!, false) })).ok).toBe(true);
    const absolute = await checkFixture(dir, { tools: ({ workdir }) => naming(workdir!, true) });
    expect(absolute.ok).toBe(false);
    expect(absolute.requests.differences.map((difference) => [difference.number, difference.nodes.map((node) => node.node)])).toEqual([[2, [3]]]);
  });

  it("refuses a working directory that holds the fixture or is not a directory, images without their store, and a bad name", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    await echoAgent(log, new EchoModel()).run("hi");
    const session = { events: log.slice() };
    const work = await fixtureDir("work");
    await mkdir(work, { recursive: true });
    await expect(recordFixture(session, join(work, "fixture"), { tools: "real", workdir: work })).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: expect.stringMatching(/is inside the working directory/) });
    await expect(recordFixture(session, await fixtureDir(), { tools: "real", workdir: join(work, "nope") })).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: expect.stringMatching(/is not a directory$/) });
    await expect(recordFixture(session, await fixtureDir(), { tools: "real" })).rejects.toMatchObject({ code: "FIXTURE_INVALID" });
    await expect(recordFixture(session, await fixtureDir(), { name: "bad name" })).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: expect.stringMatching(/^cannot record /) });
  });
});
