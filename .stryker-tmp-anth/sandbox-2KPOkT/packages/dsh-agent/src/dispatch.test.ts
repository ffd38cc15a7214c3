import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestHeaderEvent } from "dsh-header";
import { LlmError, type FrozenGenerateOptions, type LlmCallConfig } from "dsh-llm";
import { createJsonlLog, readJsonlLog, type EventLog } from "dsh-log";
import { userMessageEvent } from "dsh-surface";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconstructRequests } from "./reconstruct.js";
import { createAgentRegistry } from "./register.js";
import { body, harness, types } from "./test-support/harness.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-dispatch-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const late = (text: string) => userMessageEvent.input({ content: [{ type: "text", text }], source: "late" });
const headerReasons = (log: EventLog) => log.slice().filter((event) => requestHeaderEvent.is(event)).map((event) => (event.data as { reason: string }).reason);

/** Every loop request the adapter received equals its rebuild from the log. */
async function expectRebuilt(log: EventLog, received: readonly FrozenGenerateOptions[]): Promise<void> {
  const rebuilt = await reconstructRequests(log);
  expect(rebuilt.map((r) => body(r.request))).toEqual(received.map(body));
}

describe("the dispatch boundary", () => {
  it("refuses an append scheduled by an agent/request listener that lands after the dispatch (JSONL log)", async () => {
    const path = join(dir, "set-immediate.jsonl");
    const { log } = await createJsonlLog(path, { registry: createAgentRegistry() });
    const { agent, adapter } = harness(() => ({ text: "ok" }), { log });
    const refused: unknown[] = [];
    agent.on("agent/request", () => {
      setImmediate(() => {
        log.append(late("sneaked in")).catch((error: unknown) => refused.push(error));
      });
    });
    await agent.run("go");
    await log.close();
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: "LOG_RULE_VIOLATION", message: expect.stringMatching(/dispatched its request and awaits the answer/) });
    expect(JSON.stringify(adapter.received[0]!.messages)).not.toContain("sneaked in");
    const { log: reloaded } = await readJsonlLog(path, createAgentRegistry());
    await expectRebuilt(reloaded, adapter.received);
  });

  it("refuses an append a log listener queues as a microtask when it sees the dispatch (in-memory log)", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    const refused: unknown[] = [];
    log.subscribe((events) => {
      if (events.some((event) => event.type === "request/dispatch")) {
        queueMicrotask(() => {
          log.append(late("sneaked in")).catch((error: unknown) => refused.push(error));
        });
      }
    });
    await agent.run("go");
    expect(refused).toHaveLength(1);
    expect(JSON.stringify(adapter.received[0]!.messages)).not.toContain("sneaked in");
    await expectRebuilt(log, adapter.received);
  });

  it("includes an append that lands before the dispatch, in the request and in its rebuild", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    agent.on("agent/request", async () => {
      await log.append(late("logged in time"));
    });
    await agent.run("go");
    expect(JSON.stringify(adapter.received[0]!.messages.at(-1))).toContain("logged in time");
    await expectRebuilt(log, adapter.received);
  });

  it("delivers batches in seq order when a listener appends during a commit, and the request holds what came first", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    const seen: number[] = [];
    log.subscribe((events) => {
      if (events.some((event) => event.type === "step/start")) void log.append(late("appended inside the commit"));
    });
    log.subscribe((events) => {
      for (const event of events) seen.push(event.seq);
    });
    await agent.run("go");
    expect(seen).toEqual(log.slice().map((event) => event.seq));
    expect(JSON.stringify(adapter.received[0]!.messages.at(-1))).toContain("appended inside the commit");
    await expectRebuilt(log, adapter.received);
  });
});

describe("the call config of a request", () => {
  it("applies a reconfigure() made inside an agent/request listener to the next request, logged as a change", async () => {
    const { agent, adapter, log } = harness((_r, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"x"}' }] } : { text: "ok" }));
    let calls = 0;
    agent.on("agent/request", () => {
      if (calls++ === 0) agent.reconfigure({ provider: "scripted", model: "model-b" });
    });
    await agent.run("go");
    expect(adapter.received.map((request) => request.config.model)).toEqual(["model-a", "model-b"]);
    expect(headerReasons(log)).toEqual(["initial", "change"]);
    await expectRebuilt(log, adapter.received);
  });

  it("keeps a reconfigure() for the next request when the waterfall fails", async () => {
    const { agent, adapter } = harness(() => ({ text: "ok" }));
    agent.reconfigure({ provider: "scripted", model: "model-b" });
    const off = agent.on("agent/request", () => ({ provider: "" }) as unknown as LlmCallConfig);
    await expect(agent.run("one")).rejects.toMatchObject({ code: "AGENT_INVALID_HOOK_RESULT" });
    off();
    await agent.run("two");
    expect(adapter.received.map((request) => request.config.model)).toEqual(["model-b"]);
  });

  it("seeds later steps from the folded header, not from the agent options", async () => {
    const { agent, adapter, log } = harness((_r, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"x"}' }] } : { text: "ok" }));
    let calls = 0;
    agent.on("agent/request", (seed) => (calls++ === 0 ? { ...seed, model: "model-b", temperature: 0.5 } : undefined));
    await agent.run("go");
    expect(adapter.received.map((request) => request.config)).toEqual([
      { provider: "scripted", model: "model-b", temperature: 0.5, maxTokens: 4096 },
      { provider: "scripted", model: "model-b", temperature: 0.5, maxTokens: 4096 },
    ]);
    expect(headerReasons(log)).toEqual(["initial"]);
  });

  it("hands the waterfall a deep-frozen seed restored from the log, adapter defaults left out", async () => {
    const { agent, log } = harness(() => ({ text: "ok" }));
    await agent.run("one");
    const seeds: unknown[] = [];
    agent.on("agent/request", (seed) => {
      seeds.push(seed);
    });
    await agent.run("two");
    expect(seeds).toEqual([{ provider: "scripted", model: "model-a" }]);
    expect(Object.isFrozen(seeds[0])).toBe(true);
    expect(headerReasons(log)).toEqual(["initial"]);
  });

  it("writes no header on a retry: the same frozen request is resent under the latest snapshot", async () => {
    const { agent, adapter, log } = harness((_r, index) => (index === 0 ? { error: new LlmError("LLM_SERVER_ERROR", "boom", { status: 500 }) } : { text: "ok" }));
    agent.on("agent/pre-step", () => ({ action: "enter", startsRequestSeries: true }));
    await agent.run("go");
    expect(adapter.received).toHaveLength(2);
    expect(adapter.received[1]).toBe(adapter.received[0]);
    expect(types(log).filter((type) => type === "request/header")).toHaveLength(1);
    expect(types(log).filter((type) => type === "request/retry")).toHaveLength(1);
  });

  it("keeps stop: [] and nested extensions exactly, in the logged header and in the request", async () => {
    const config = { provider: "scripted", model: "model-a", stop: [], extensions: { z: { b: 1, a: [] } } };
    const { agent, adapter, log } = harness(() => ({ text: "ok" }), { config });
    await agent.run("go");
    const header = log.slice().find((event) => requestHeaderEvent.is(event))!;
    expect(JSON.stringify(header.data)).toContain('"stop":[],"extensions":{"z":{"b":1,"a":[]}}');
    expect(adapter.received[0]!.config).toEqual({ ...config, maxTokens: 4096 });
  });
});

describe("the adapter's wire profile", () => {
  it("is logged in each header snapshot, and a profile that changes mid-session is a logged change", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    let dialect = "deepseek";
    Object.assign(adapter, { wireProfile: (model: string) => ({ api: "chat-completions", dialect, model }) });
    await agent.run("one");
    await agent.run("two");
    dialect = "openai";
    await agent.run("three");
    const headers = log.slice().filter((event) => requestHeaderEvent.is(event)).map((event) => event.data as { reason: string; header: { wire?: object } });
    expect(headers.map((data) => [data.reason, data.header.wire])).toEqual([
      ["initial", { api: "chat-completions", dialect: "deepseek", model: "model-a" }],
      ["change", { api: "chat-completions", dialect: "openai", model: "model-a" }],
    ]);
    const rebuilt = await reconstructRequests(log);
    expect(rebuilt.map((request) => request.snapshot.header.wire?.dialect)).toEqual(["deepseek", "deepseek", "openai"]);
  });
});
