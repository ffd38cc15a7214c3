import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { foldRequestHeader } from "dsh-header";
import { LlmRuntime, type FrozenGenerateOptions, type LlmAdapter } from "dsh-llm";
import type { AttachmentStore } from "dsh-attachments";
import { JsonlStore, createJsonlLog, readJsonlLog } from "dsh-log";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { continuedSelection } from "./continue.js";
import { AgentError } from "./errors.js";
import { openAgent, readSession } from "./open.js";
import { reconstructRequests } from "./reconstruct.js";
import { createAgentRegistry } from "./register.js";
import { echoTool } from "./test-support/harness.js";
import { ScriptedAdapter } from "./test-support/scripted-adapter.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-open-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const answering = () => new ScriptedAdapter(() => ({ text: "ok" }), { maxTokens: 4096, reasoningEffort: "high" });

describe("openAgent", () => {
  it("creates a JSONL session with the agent's registry and continues it in a later call with its model, choices and prompt", async () => {
    const path = join(dir, "session.jsonl");
    const first = await openAgent({ session: path, adapters: [answering()], config: { provider: "scripted", model: "model-a", temperature: 0.5 }, systemPrompt: "Be brief.", tools: [echoTool] });
    expect(first.resumed).toBe(false);
    await first.agent.run("hello");
    await first.close();

    const adapter = answering();
    const second = await openAgent({ session: path, adapters: [adapter], tools: [echoTool] });
    expect(second.resumed).toBe(true);
    expect(second.sessionId).toBe(first.sessionId);
    await second.agent.run("again");
    await second.close();

    const { log } = await readJsonlLog(path, createAgentRegistry());
    const snapshots = log.slice().filter((event) => event.type === "request/header");
    expect(snapshots.map((event) => (event.data as { reason: string }).reason)).toEqual(["initial", "resume"]);
    // The resume restored the explicit choice and left the adapter default a default: no drift.
    expect(foldRequestHeader(log)?.header).toMatchObject({ config: { model: "model-a", temperature: 0.5, reasoningEffort: "high" }, adapterDefaults: { reasoningEffort: "high" } });
    expect(adapter.received[0]?.messages[0]).toMatchObject({ role: "system", content: "Be brief." });
    expect(log.slice().filter((event) => event.type === "surface/replace")).toEqual([]);
  });

  it("applies config to a continued session: a model switch keeps the choices, a provider switch needs a model and drops provider-specific ones", async () => {
    const path = join(dir, "session.jsonl");
    const first = await openAgent({ session: path, adapters: [answering()], config: { provider: "scripted", model: "model-a", cacheTtl: "1h", temperature: 0.2 } });
    await first.agent.run("hello");
    await first.close();

    const inner = new ScriptedAdapter(() => ({ text: "ok" }));
    const other: LlmAdapter = { provider: "other", stream: (request) => inner.stream(request), modelDefaults: () => inner.modelDefaults() };
    await expect(openAgent({ session: path, adapters: [other], config: { provider: "other" } })).rejects.toThrow(
      "switching the session from provider scripted to other needs a model",
    );
    const again = await openAgent({ session: path, adapters: [answering(), other], config: { provider: "other", model: "model-o" } });
    await again.agent.run("on the other provider");
    await again.close();
    const { log } = await readJsonlLog(path, createAgentRegistry());
    expect(foldRequestHeader(log)?.header.config).toEqual({ provider: "other", model: "model-o", temperature: 0.2, maxTokens: 4096 });

    const modelOnly = await openAgent({ session: path, adapters: [answering(), other], config: { model: "model-p" } });
    await modelOnly.agent.run("a new model");
    await modelOnly.close();
    const reread = await readJsonlLog(path, createAgentRegistry());
    expect(foldRequestHeader(reread.log)?.header.config).toMatchObject({ provider: "other", model: "model-p", temperature: 0.2 });
  });

  it("creates a store session when the id is new or absent, and continues it by id", async () => {
    const store = new JsonlStore(dir);
    const fresh = await openAgent({ session: { store }, adapters: [answering()], config: { provider: "scripted", model: "model-a" } });
    await fresh.agent.run("one");
    await fresh.close();
    const named = await openAgent({ session: { store, id: "named-1" }, adapters: [answering()], config: { provider: "scripted", model: "model-a" } });
    expect([named.sessionId, named.resumed]).toEqual(["named-1", false]);
    await named.close();
    const continued = await openAgent({ session: { store, id: fresh.sessionId }, adapters: [answering()] });
    expect(continued.resumed).toBe(true);
    await continued.agent.run("two");
    await continued.close();
    expect((await store.list()).map((summary) => summary.sessionId).sort()).toEqual([fresh.sessionId, "named-1"].sort());
  });

  it("refuses a new session without a model, and unclear runtime options, with one line and the log released", async () => {
    const path = join(dir, "session.jsonl");
    const refusal = await openAgent({ session: path, adapters: [answering()] }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AgentError);
    expect(refusal).toMatchObject({ code: "AGENT_INVALID_OPTIONS", message: "the session has no request to continue from: give config with a provider and a model" });
    // The log was closed on the way out: another writer can open it.
    const retry = await openAgent({ session: path, adapters: [answering()], config: { provider: "scripted", model: "model-a" } });
    await retry.close();

    await expect(openAgent({ session: path, config: { provider: "scripted", model: "m" } })).rejects.toThrow("openAgent needs adapters (or a runtime)");
    await expect(openAgent({ session: path, adapters: [], config: { provider: "scripted", model: "m" } })).rejects.toThrow("openAgent needs adapters");
    await expect(openAgent({ session: path, runtime: new LlmRuntime(), adapters: [answering()] })).rejects.toThrow("pass either runtime or adapters");
  });

  it("uses a runtime it is given, so listeners see what is sent", async () => {
    const runtime = new LlmRuntime({ adapters: [answering()] });
    const seen: FrozenGenerateOptions[] = [];
    runtime.on("llm/stream", ({ request }) => seen.push(request));
    const session = await openAgent({ session: join(dir, "s.jsonl"), runtime, config: { provider: "scripted", model: "model-a" } });
    expect(session.runtime).toBe(runtime);
    await session.agent.run("hi");
    await session.close();
    expect(seen).toHaveLength(1);
  });

  it("rethrows a store failure other than a missing session", async () => {
    const store = new JsonlStore(dir);
    await expect(openAgent({ session: { store, id: "../escape" }, adapters: [answering()], config: { provider: "scripted", model: "m" } })).rejects.toMatchObject({ code: "LOG_BAD_SESSION_ID" });
    await expect(openAgent({ session: dir, adapters: [answering()], config: { provider: "scripted", model: "m" } })).rejects.toMatchObject({ code: expect.stringMatching(/^LOG_/) });
  });
});

describe("openAgent's edges", () => {
  it("starts a new session with an empty prompt unless one is given", async () => {
    const adapter = answering();
    const session = await openAgent({ session: join(dir, "s.jsonl"), adapters: [adapter], config: { provider: "scripted", model: "model-a" } });
    await session.agent.run("hi");
    await session.close();
    expect(adapter.received[0]?.messages[0]).toMatchObject({ role: "system", content: "" });
  });

  it("hands its attachments store to the adapters, and refuses a runtime with attachments", async () => {
    const attachments = { root: dir } as unknown as AttachmentStore;
    const seen: unknown[] = [];
    const inner = answering();
    const adapter: LlmAdapter = { provider: "scripted", stream: (request, context) => (seen.push(context.attachments), inner.stream(request)) };
    const session = await openAgent({ session: join(dir, "s.jsonl"), adapters: [adapter], attachments, config: { provider: "scripted", model: "model-a" } });
    await session.agent.run("hi");
    await session.close();
    expect(seen).toEqual([attachments]);
    await expect(openAgent({ session: join(dir, "t.jsonl"), runtime: new LlmRuntime(), attachments, config: { provider: "scripted", model: "m" } })).rejects.toThrow("pass either runtime or adapters");
  });

  it("reports why a session cannot be opened: a missing directory, a session another writer holds", async () => {
    const config = { provider: "scripted", model: "model-a" };
    await expect(openAgent({ session: join(dir, "missing", "s.jsonl"), adapters: [answering()], config })).rejects.toMatchObject({ code: "ENOENT" });
    const path = join(dir, "held.jsonl");
    const holder = await openAgent({ session: path, adapters: [answering()], config });
    await expect(openAgent({ session: path, adapters: [answering()], config })).rejects.toMatchObject({ code: "LOG_LOCKED" });
    const store = new JsonlStore(join(dir, "store"));
    const held = await openAgent({ session: { store, id: "held" }, adapters: [answering()], config });
    await expect(openAgent({ session: { store, id: "held" }, adapters: [answering()], config })).rejects.toMatchObject({ code: "LOG_LOCKED" });
    await holder.close();
    await held.close();
  });
});

describe("continuedSelection", () => {
  it("needs both a provider and a model for a log without requests", async () => {
    const { log } = await createJsonlLog(join(dir, "empty.jsonl"), { registry: createAgentRegistry() });
    for (const partial of [{ provider: "scripted" }, { model: "model-a" }, {}]) {
      expect(() => continuedSelection(log, partial)).toThrow("the session has no request to continue from: give config with a provider and a model");
    }
    expect(continuedSelection(log, { provider: "scripted", model: "model-a", temperature: 1 })).toEqual({ provider: "scripted", model: "model-a", temperature: 1 });
    await log.close();
  });

  it("keeps provider-specific choices when only the model changes", async () => {
    const path = join(dir, "s.jsonl");
    const first = await openAgent({ session: path, adapters: [answering()], config: { provider: "scripted", model: "model-a", cacheTtl: "1h", cachePolicy: "rolling-v1" } });
    await first.agent.run("hello");
    expect(continuedSelection(first.log, { model: "model-b" })).toEqual({ provider: "scripted", model: "model-b", cacheTtl: "1h", cachePolicy: "rolling-v1" });
    expect(() => continuedSelection(first.log, { provider: "other" })).toThrow("switching the session from provider scripted to other needs a model");
    await first.close();
  });
});

describe("readSession", () => {
  it("reads a JSONL file or a store session with the agent's registry, while a writer holds it", async () => {
    const path = join(dir, "s.jsonl");
    const running = await openAgent({ session: path, adapters: [answering()], config: { provider: "scripted", model: "model-a" } });
    await running.agent.run("hello");
    const read = await readSession(path);
    expect(read.sessionId).toBe(running.sessionId);
    expect(read.log.slice()).toEqual(running.log.slice());
    await running.close();

    const store = new JsonlStore(join(dir, "store"));
    const stored = await openAgent({ session: { store, id: "kept" }, adapters: [answering()], config: { provider: "scripted", model: "model-a" } });
    await stored.agent.run("hi");
    await stored.close();
    const fromStore = await readSession({ store, id: "kept" });
    expect(fromStore.sessionId).toBe("kept");
    expect((await reconstructRequests(fromStore.log)).length).toBe(1);
    await expect(readSession({ store, id: "missing" })).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
  });
});
