import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAgentLoopRequest, jsonEquals, LlmError, markUnsent, type FrozenGenerateOptions, type JsonValue } from "dsh-llm";
import { createJsonlLog, EventLog, EventRegistry, readJsonlLog, type LogEvent } from "dsh-log";
import { isSurfaceEvent } from "dsh-surface";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRegistry } from "./register.js";
import { forkPoints, forkSeed } from "./fork.js";
import { reconstructRequests } from "./reconstruct.js";
import { body, harness } from "./test-support/harness.js";
import type { ScriptedAnswer } from "./test-support/scripted-adapter.js";
import { defineTool } from "./tools.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-agent-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const shoutTool = defineTool({
  name: "shout",
  description: "Upper-case the text",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => ({ content: text.toUpperCase(), additionalContexts: text.length % 2 === 0 ? [`shouted ${text}`] : [] }),
});

const answer: fc.Arbitrary<ScriptedAnswer> = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 12 }) }),
  fc.record({ reasoning: fc.string({ minLength: 1, maxLength: 8 }), text: fc.string({ maxLength: 8 }) }),
  fc.array(fc.record({ name: fc.constantFrom("echo", "shout", "missing"), text: fc.string({ maxLength: 6 }) }), { minLength: 1, maxLength: 3 }).map(
    (calls) => ({ toolCalls: calls.map((call) => ({ name: call.name, arguments: JSON.stringify({ text: call.text }) })) }),
  ),
  fc.constant({ partialText: "cut", error: new LlmError("LLM_SERVER_ERROR", "upstream 500", { status: 500 }) }),
  fc.constant({ error: new LlmError("LLM_STREAM_INTERRUPTED", "stream dropped") }),
);

const turnPlan = fc.record({
  compact: fc.boolean(),
  summaryFails: fc.boolean(),
  trim: fc.boolean(),
  resume: fc.boolean(),
  prompt: fc.string({ minLength: 1, maxLength: 10 }),
  injectBefore: fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }),
  injectDuringRequest: fc.boolean(),
  systemVersion: fc.nat(2),
  toggleShout: fc.boolean(),
  model: fc.option(fc.constantFrom("model-a", "model-b"), { nil: undefined }),
  startsSeries: fc.boolean(),
  preStepMessage: fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }),
});

/** Whether `before`'s messages are a prefix of `after`'s with the same config and tools. */
function extendsPrefix(before: FrozenGenerateOptions, after: FrozenGenerateOptions): boolean {
  const json = (value: unknown) => value as JsonValue;
  return (
    jsonEquals(json(before.config), json(after.config)) &&
    jsonEquals(json(before.tools), json(after.tools)) &&
    before.messages.length <= after.messages.length &&
    before.messages.every((message, i) => jsonEquals(json(message), json(after.messages[i])))
  );
}

/** The logged events between two dispatches that explain a prefix break. */
function explanations(events: readonly LogEvent[], from: number, to: number): string[] {
  return events.slice(from + 1, to).flatMap((event) => {
    if (event.type === "request/header") return [`header:${(event.data as { reason: string }).reason}`];
    if (isSurfaceEvent(event) && event.data.replaces !== undefined) return [`replace:${event.type}`];
    return [];
  });
}

describe("reconstructRequests admission", () => {
  /** A valid logged turn, as raw events, with one header whose data can be swapped. */
  async function rawSession() {
    const { agent, log } = harness(() => ({ text: "ok" }));
    await agent.run("go");
    return log.slice().map((event) => ({ ...event }));
  }

  it.each([
    ["the retired fallback reason", (data: Record<string, unknown>) => ({ ...data, reason: "fallback" }), "LOG_LEGACY_EVENT"],
    ["a header.system field", (data: Record<string, unknown>) => ({ ...data, header: { ...(data.header as object), system: "x" } }), "LOG_INVALID_EVENT"],
    ["adapterDefaults: {}", (data: Record<string, unknown>) => ({ ...data, header: { ...(data.header as object), adapterDefaults: {} } }), "LOG_INVALID_EVENT"],
    ["a first snapshot that is not initial", (data: Record<string, unknown>) => ({ ...data, reason: "series" }), "LOG_RULE_VIOLATION"],
  ])("refuses raw events with %s, as loading would", async (_what, change, code) => {
    const events = await rawSession();
    const at = events.findIndex((event) => event.type === "request/header");
    events[at] = { ...events[at]!, data: change(events[at]!.data as Record<string, unknown>) };
    await expect(reconstructRequests(events)).rejects.toMatchObject({ code });
  });

  it("refuses a dispatch with no header before it, and a log whose registry lacks the agent's rules", async () => {
    const events = await rawSession();
    await expect(reconstructRequests(events.filter((event) => event.type !== "request/header").map((event, seq) => ({ ...event, seq })))).rejects.toMatchObject({
      code: "LOG_RULE_VIOLATION",
      message: expect.stringMatching(/needs a request\/header snapshot/),
    });
    await expect(reconstructRequests(new EventLog({ registry: new EventRegistry() }))).rejects.toMatchObject({
      code: "AGENT_RECONSTRUCTION",
      message: "the log's registry lacks the agent's events: create it with createAgentRegistry()",
    });
  });

  it("admits raw events with a caller's registry, extra types included", async () => {
    const events = [...(await rawSession())];
    events.push({ seq: events.length, type: "ui/note", time: 1, data: { any: true } });
    await expect(reconstructRequests(events)).rejects.toMatchObject({ code: "LOG_UNKNOWN_TYPE" });
    await expect(reconstructRequests(events, { registry: createAgentRegistry().ignore("ui/") })).resolves.toHaveLength(1);
  });
});

describe("events loaded into a live log", () => {
  it("reach the agent's next request, which equals its rebuild", async () => {
    const before = harness(() => ({ text: "first answer" }));
    await before.agent.run("first question");
    const { agent, adapter, log } = harness(() => ({ text: "second answer" }));
    log.load(before.log.slice());
    await agent.run("second question");
    const sent = JSON.stringify(adapter.received[0]!.messages);
    expect(sent).toContain("first question");
    expect(sent).toContain("first answer");
    expect((await reconstructRequests(log)).map((r) => body(r.request))).toEqual([...before.adapter.received, ...adapter.received].map(body));
  });

  it("are refused by a log that persists to a file", async () => {
    const { log } = await createJsonlLog(join(dir, `load-${Date.now()}.jsonl`), { registry: createAgentRegistry() });
    expect(() => log.load([])).toThrowError(expect.objectContaining({ code: "LOG_LOAD_REFUSED" }));
    await log.close();
  });
});

let sessions = 0;
const seen = { requests: 0, breaks: 0, retries: 0, replaces: 0, compactions: 0, trims: 0, changes: 0, resumes: 0, forks: 0 };

describe("reconstructRequests", () => {
  it("rebuilds every dispatched request from the reloaded JSONL log, and every prefix break is explained by a logged event", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(answer, { minLength: 1, maxLength: 12 }),
        fc.array(turnPlan, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        async (answers, turns, forkChoice) => {
          const path = join(dir, `session-${sessions++}.jsonl`);
          const { log } = await createJsonlLog(path, { registry: createAgentRegistry() });
          let systemVersion = 0;
          let plan = turns[0]!;
          let calls = 0;
          const script = (request: FrozenGenerateOptions): ScriptedAnswer => {
            if (request.messages[0]?.source === "compaction") {
              return plan.summaryFails ? { error: new LlmError("LLM_BAD_REQUEST", "no summary") } : { text: `summary ${calls++}` };
            }
            return answers[calls++ % answers.length]!;
          };
          const instances: ReturnType<typeof harness>[] = [];
          const startInstance = () => {
            const instance = harness(script, {
              log,
              maxSteps: 4,
              systemPrompt: () => `You are version ${systemVersion}.${systemVersion === 2 ? "   " : ""}`,
            });
            instance.agent.on("agent/request", (seed) => {
              if (plan.injectDuringRequest) instance.agent.inject("injected during the waterfall");
              return plan.model === undefined ? undefined : { ...seed, model: plan.model };
            });
            instance.agent.on("agent/pre-step", ({ step }) =>
              step === 0
                ? { action: "enter", startsRequestSeries: plan.startsSeries, ...(plan.preStepMessage === undefined ? {} : { messages: [plan.preStepMessage] }) }
                : undefined,
            );
            instances.push(instance);
            return instance.agent;
          };
          let agent = startInstance();
          for (const current of turns) {
            plan = current;
            systemVersion = current.systemVersion;
            if (current.resume) agent = startInstance();
            if (current.compact) await agent.compact({ keepRecent: 2 });
            if (current.trim) await agent.trimToolResults({ maxChars: 8, keepRecent: 1 });
            if (current.toggleShout && !agent.tools.unregister("shout")) agent.tools.register(shoutTool);
            if (current.injectBefore !== undefined) agent.inject(current.injectBefore);
            await agent.run(current.prompt).catch((error: unknown) => {
              if (!(error instanceof LlmError)) throw error;
            });
          }
          await log.close();

          const received = instances.flatMap((instance) => instance.adapter.received);
          // Only the summary calls of compaction go unmarked.
          for (const request of received.filter((request) => !isAgentLoopRequest(request))) {
            expect(request.messages[0]?.source).toBe("compaction");
          }
          const loopRequests = received.filter((request, i) => isAgentLoopRequest(request) && received.indexOf(request) === i);
          const reloaded = await readJsonlLog(path, createAgentRegistry());
          const events = reloaded.log.slice();
          const rebuilt = await reconstructRequests(events);
          expect(rebuilt.map((r) => body(r.request))).toEqual(loopRequests.map(body));

          for (let i = 1; i < rebuilt.length; i++) {
            const [previous, current] = [rebuilt[i - 1]!, rebuilt[i]!];
            if (!extendsPrefix(previous.request, current.request)) {
              seen.breaks++;
              expect(explanations(events, previous.dispatchSeq, current.dispatchSeq)).not.toEqual([]);
            }
          }
          seen.requests += rebuilt.length;
          seen.retries += events.filter((event) => event.type === "request/retry").length;
          const all = explanations(events, -1, events.length);
          seen.replaces += all.filter((why) => why.startsWith("replace")).length;
          seen.compactions += all.filter((why) => why === "replace:user/message").length;
          seen.trims += all.filter((why) => why === "replace:tool/result").length;
          seen.changes += all.filter((why) => why === "header:change").length;
          seen.resumes += all.filter((why) => why === "header:resume").length;

          // Fork at a closed turn with another model: the fork's log rebuilds the parent's requests up to
          // the fork point, then the fork's own, and its first snapshot is a resume.
          const points = forkPoints(events);
          if (points.length === 0) return;
          const at = points[forkChoice % points.length]!;
          const forkPath = join(dir, `fork-${sessions}.jsonl`);
          const fork = await createJsonlLog(forkPath, { registry: createAgentRegistry(), fork: { parentSessionId: reloaded.header.sessionId, seed: forkSeed(events, at) } });
          const forked = harness(() => ({ text: "forked answer" }), { log: fork.log, config: { provider: "scripted", model: "model-fork" } });
          await forked.agent.run("a different second half");
          await fork.log.close();
          const forkEvents = (await readJsonlLog(forkPath, createAgentRegistry())).log.slice();
          const forkRebuilt = await reconstructRequests(forkEvents);
          const expected = [...loopRequests.slice(0, rebuilt.filter((r) => r.dispatchSeq < at).length), ...forked.adapter.received];
          expect(forkRebuilt.map((r) => body(r.request))).toEqual(expected.map(body));
          const firstOwn = forkEvents.slice(at + 1).find((event) => event.type === "request/header");
          expect(firstOwn?.data).toMatchObject({ reason: rebuilt.some((r) => r.dispatchSeq < at) ? "resume" : "initial" });
          seen.forks++;
        },
      ),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 60) },
    );
    // The generated sessions really did exercise breaks, retries, prompt replaces, compactions,
    // trims, config changes, resumes and forks.
    expect(seen.breaks).toBeGreaterThan(0);
    expect(seen.retries).toBeGreaterThan(0);
    expect(seen.replaces).toBeGreaterThan(0);
    expect(seen.compactions).toBeGreaterThan(0);
    expect(seen.trims).toBeGreaterThan(0);
    expect(seen.changes).toBeGreaterThan(0);
    expect(seen.resumes).toBeGreaterThan(0);
    expect(seen.forks).toBeGreaterThan(0);
  }, 180_000);
});

describe("requests that never left the process", () => {
  it("are told apart from sent ones: an abort before sending, a request the runtime refuses, a failure after sending", async () => {
    const controller = new AbortController();
    let refuse = false;
    const { agent, adapter, log } = harness((_request, index) => {
      if (index === 0) return { error: new LlmError("LLM_BAD_REQUEST", "the provider said no", { status: 400 }) };
      return refuse ? { error: markUnsent(new LlmError("LLM_INVALID_REQUEST", "cannot serialize this")) } : { text: "ok" };
    });
    // Sent, then refused by the provider: bytes left the process.
    await expect(agent.run("one")).rejects.toMatchObject({ code: "LLM_BAD_REQUEST" });
    // Aborted inside the waterfall, after the dispatch is logged and before any byte is sent.
    const off = agent.on("agent/request", (seed) => {
      controller.abort();
      return seed;
    });
    await expect(agent.run("two", { signal: controller.signal })).resolves.toMatchObject({ reason: "aborted" });
    off();
    // Refused by the adapter before sending (as a serializer refuses), marked unsent.
    refuse = true;
    await expect(agent.run("three")).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
    refuse = false;
    await agent.run("four");
    const rebuilt = await reconstructRequests(log);
    expect(rebuilt.map((request) => [request.turn, request.sent])).toEqual([
      [0, true],
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(adapter.received).toHaveLength(3);
    const ends = log.slice().filter((event) => event.type === "step/end").map((event) => (event.data as { unsent?: true }).unsent);
    expect(ends).toEqual([undefined, true, true, undefined]);
  });

  it("count as possibly sent when the step never ended (a crash)", async () => {
    const { agent, log } = harness(() => ({ text: "ok" }));
    await agent.run("one");
    const cut = log.slice().findIndex((event) => event.type === "request/dispatch");
    const rebuilt = await reconstructRequests(log.slice(0, cut + 1));
    expect(rebuilt.map((request) => request.sent)).toEqual([true]);
  });
});

describe("a rebuild of chosen requests", () => {
  it("yields only the requests chosen, each equal to its rebuild among all, and is asked once per dispatch", async () => {
    const { agent, log } = harness((_request, index) => (index % 2 === 0 ? { toolCalls: [{ name: "echo", arguments: JSON.stringify({ text: `t${index}` }) }] } : { text: "done" }));
    for (const prompt of ["one", "two", "three"]) await agent.run(prompt);
    const all = await reconstructRequests(log);
    const asked: number[] = [];
    const chosen = await reconstructRequests(log, {
      only: ({ turn, step, dispatchSeq }) => {
        asked.push(dispatchSeq);
        return (turn === 1 && step === 1) || dispatchSeq === all.at(-1)!.dispatchSeq;
      },
    });
    expect(asked).toEqual(all.map((request) => request.dispatchSeq));
    expect(chosen.map((request) => [request.turn, request.step])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(chosen).toEqual([all.find((request) => request.turn === 1 && request.step === 1), all.at(-1)]);
  });
});
