import { LlmError, markUnsent } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { Agent } from "./agent.js";
import { advanceTurn, driveTurn, turnToStart, type TurnPosition } from "./durable.js";
import type { DurableTurnOptions } from "./durable-loop.js";
import { sha256Hex } from "./durable-receipt.js";
import { reconstructRequests } from "./reconstruct.js";
import { createAgentRegistry } from "./register.js";
import { baseConfig, body, echoTool } from "./test-support/harness.js";
import { RequestKeyedAdapter, paymentTool, reloaded, runtimeOf, timeless, type PlannedAnswer } from "./test-support/durable.js";
import { defineTool, type AgentTool } from "./tools.js";

function options(adapter: RequestKeyedAdapter, tools: readonly AgentTool[] = [echoTool], extra: Partial<DurableTurnOptions> = {}): DurableTurnOptions {
  return { runtime: runtimeOf(adapter), config: baseConfig, systemPrompt: "You are a test.", tools, retry: { maxRetries: 1, baseDelayMs: 0, maxDelayMs: 0 }, ...extra };
}

const newLog = () => new EventLog({ registry: createAgentRegistry() });

/** Drives the next turn of `log` straight through. */
function drive(log: EventLog, opts: DurableTurnOptions, input = "hi", source?: string) {
  return driveTurn({ ...turnToStart(log), input, ...(source === undefined ? {} : { source }) }, (position) => advanceTurn(log, opts, position));
}

/** The log of Agent.run on the same turn, for comparison. */
async function plainRun(plan: boolean | ((count: number) => PlannedAnswer), tools: readonly AgentTool[] = [echoTool], extra: { signal?: AbortSignal; source?: string } = {}) {
  const log = newLog();
  const adapter = new RequestKeyedAdapter(plan);
  await new Agent({ log, ...options(adapter, tools) }).run("hi", extra).catch(() => undefined);
  return { log, adapter };
}

const typed = (events: readonly LogEvent[], type: string) => events.filter((event) => event.type === type);

describe("a model unit that dies after sending", () => {
  it("committed its dispatch first: a recovery by a changed agent sends that logged request again, and the log rebuilds every body the provider received", async () => {
    const adapter = new RequestKeyedAdapter();
    const log = newLog();
    // An engine's transaction: appends made in commitApart are durable at once, the rest only when the unit returns.
    let committed = 0;
    const transactional = { ...options(adapter), commitApart: async <T>(work: () => Promise<T>) => {
      const result = await work();
      committed = log.length;
      return result;
    } };
    await advanceTurn(log, transactional, { turn: 0, head: 0, input: "hi" });
    expect(adapter.received).toHaveLength(1);
    // The worker dies after the provider answered, before the unit's transaction committed the answer.
    const survived = reloaded(log.slice(0, committed));
    expect(survived.get(survived.length - 1)?.type).toBe("request/dispatch");
    // Another worker recovers the turn with one more tool and a revised prompt.
    const extra = defineTool({ name: "extra", description: "One more", parameters: z.object({}), execute: () => "more" });
    const changed = { ...options(adapter, [echoTool, extra]), systemPrompt: "You are a revised test." };
    await driveTurn({ turn: 0, head: 0, input: "hi" }, (position) => advanceTurn(survived, changed, position));
    expect(JSON.stringify(body(adapter.received[1]!))).toBe(JSON.stringify(body(adapter.received[0]!)));
    const rebuilt = new Set((await reconstructRequests(survived)).map((request) => JSON.stringify(body(request.request))));
    expect(adapter.received.length).toBeGreaterThan(2);
    for (const received of adapter.received) expect(rebuilt.has(JSON.stringify(body(received)))).toBe(true);
    // The changes reach the requests after the one that was in flight, each logged.
    expect(JSON.stringify(body(adapter.received.at(-1)!))).toContain("You are a revised test.");
    expect(survived.slice().filter((event) => event.type === "request/header").map((event) => (event.data as { reason: string }).reason)).toEqual(["initial", "change"]);
  });
});

describe("a durable unit", () => {
  it("hashes the request it sent: SHA-256 of its JSON without the signal", async () => {
    const adapter = new RequestKeyedAdapter();
    const [first] = await drive(newLog(), options(adapter));
    expect(first?.requestHash).toBe(await sha256Hex(JSON.stringify(body(adapter.received[0]!))));
  });

  it("dispatches a step whose opening was logged but not its dispatch, with no second step/start", async () => {
    const adapter = new RequestKeyedAdapter();
    const whole = newLog();
    await drive(whole, options(adapter));
    const opened = whole.slice().findIndex((event) => event.type === "user/message");
    const cut = reloaded(whole.slice(0, opened + 1));
    await driveTurn({ turn: 0, head: 0, input: "hi" }, (position) => advanceTurn(cut, options(adapter), position));
    expect(timeless(cut)).toEqual(timeless(whole));
    expect(body(adapter.received[2]!)).toEqual(body(adapter.received[0]!));
    // A later step opened without new input, and a turn started without its first step: the same log again.
    for (const at of [whole.slice().map((event) => event.type).lastIndexOf("step/start"), 0]) {
      const again = reloaded(whole.slice(0, at + 1));
      await driveTurn({ turn: 0, head: 0, input: "hi" }, (position) => advanceTurn(again, options(adapter), position));
      expect(timeless(again)).toEqual(timeless(whole));
    }
  });

  it("ends a step whose calls all have results but whose end was lost, with the answer the engine carried", async () => {
    const adapter = new RequestKeyedAdapter();
    const whole = newLog();
    const receipts = await drive(whole, options(adapter));
    const end = whole.slice().findIndex((event) => event.type === "step/end");
    const cut = reloaded(whole.slice(0, end));
    expect(await advanceTurn(cut, options(adapter), { turn: 0, head: end - 1, input: "hi", previous: receipts[0]! })).toMatchObject({ from: end - 1, to: end, next: { kind: "close" } });
    const closed = await advanceTurn(cut, options(adapter), { turn: 0, head: end, input: "hi", previous: receipts[0]! });
    expect(closed).toMatchObject({ from: end, to: end + 1, next: { kind: "model" } });
    expect(cut.get(end)?.data).toEqual(whole.get(end)?.data);
    // Without the carried answer, the step still ends; only the provider's report is missing.
    const bare = reloaded(whole.slice(0, end));
    await advanceTurn(bare, options(adapter), { turn: 0, head: end, input: "hi" });
    expect(bare.get(end)?.data).toEqual({ turn: 0, step: 0, reason: "completed" });
    // A tool unit the engine gives no receipt before runs its call all the same.
    const toolLeft = reloaded(whole.slice(0, end - 1));
    expect(await advanceTurn(toolLeft, options(adapter), { turn: 0, head: end - 1, input: "hi" })).toMatchObject({ next: { kind: "model" } });
    expect(toolLeft.get(end - 1)?.data).toEqual(whole.get(end - 1)?.data);
  });

  it("logs a retry and sends the same request again, as Agent.run does", async () => {
    const adapter = new RequestKeyedAdapter();
    adapter.failures.push(new LlmError("LLM_RATE_LIMITED", "slow down", { retryable: true }));
    const log = newLog();
    await drive(log, options(adapter));
    const plain = newLog();
    const plainAdapter = new RequestKeyedAdapter();
    plainAdapter.failures.push(new LlmError("LLM_RATE_LIMITED", "slow down", { retryable: true }));
    await new Agent({ log: plain, ...options(plainAdapter) }).run("hi");
    expect(timeless(log)).toEqual(timeless(plain));
    expect(typed(log.slice(), "request/retry")[0]?.data).toMatchObject({ turn: 0, step: 0, attempt: 1 });
  });

  it("marks a failed request unsent when no attempt sent it, and names the request in its receipt", async () => {
    const adapter = new RequestKeyedAdapter();
    adapter.failures.push(markUnsent(new LlmError("LLM_BAD_REQUEST", "refused before sending", { retryable: false })));
    const log = newLog();
    const [receipt] = await drive(log, options(adapter));
    expect(typed(log.slice(), "step/end")[0]?.data).toMatchObject({ reason: "error", unsent: true });
    expect(receipt).toMatchObject({ requestHash: expect.stringMatching(/^[0-9a-f]{64}$/), next: { kind: "done", reason: "error" } });
  });

  it("ends a turn whose answer was cut off at the token limit as Agent.run does: its calls not run", async () => {
    const plan = (count: number): PlannedAnswer => ({ text: "Let", calls: [{ id: "c-echo", name: "echo", arguments: '{"text":' }], finish: count > 0 ? "length" : "stop" });
    const log = newLog();
    const receipts = await drive(log, options(new RequestKeyedAdapter(plan)));
    expect(receipts.at(-1)?.next).toEqual({ kind: "done", reason: "max-tokens" });
    expect(timeless(log)).toEqual(timeless((await plainRun(plan)).log));
    expect(typed(log.slice(), "tool/result")[0]?.data).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Error \[TOOL_NOT_RUN\]/) }] });
  });

  it("ends the step and the turn as aborted when the signal aborts during the model call or a tool", async () => {
    const duringCall = new AbortController();
    const calling = new RequestKeyedAdapter();
    calling.failures.push(new LlmError("LLM_ABORTED", "aborted"));
    duringCall.abort();
    const first = newLog();
    const [aborted] = await drive(first, options(calling, [echoTool], { signal: duringCall.signal }));
    expect(aborted).toMatchObject({ requestHash: expect.stringMatching(/^[0-9a-f]{64}$/), next: { kind: "done", reason: "aborted" } });
    expect(typed(first.slice(), "step/end")[0]?.data).toMatchObject({ turn: 0, step: 0, reason: "aborted" });
    expect(typed(first.slice(), "turn/end")[0]?.data).toEqual({ turn: 0, reason: "aborted" });
    const duringTool = new AbortController();
    const stopper = defineTool({ name: "echo", description: "Stops the turn", parameters: z.object({ text: z.string() }), execute: () => (duringTool.abort(), "stopped") });
    const second = newLog();
    expect((await drive(second, options(new RequestKeyedAdapter(), [stopper], { signal: duringTool.signal }))).at(-1)?.next).toEqual({ kind: "done", reason: "aborted" });
    expect(second.slice().slice(-2).map((event) => [event.type, (event.data as { reason: string }).reason])).toEqual([
      ["step/end", "aborted"],
      ["turn/end", "aborted"],
    ]);
    expect(typed(second.slice(), "request/dispatch")).toHaveLength(1);
  });

  it("gives a call of a tool no longer offered an error result, and goes on", async () => {
    const log = newLog();
    const receipts = await drive(log, options(new RequestKeyedAdapter(), []));
    expect(receipts.at(-1)?.next).toEqual({ kind: "done", reason: "completed" });
    expect(typed(log.slice(), "tool/result")[0]?.data).toMatchObject({ isError: true, content: [{ text: "Error [TOOL_UNKNOWN]: no tool named echo is offered" }] });
  });

  it("carries the context a tool queues to the next step's request, as Agent.run does, also in a receipt rebuilt from the log", async () => {
    const noting = defineTool({ name: "echo", description: "Echo with a note", parameters: z.object({ text: z.string() }), execute: ({ text }) => ({ content: text, additionalContexts: ["a note"] }) });
    const log = newLog();
    const adapter = new RequestKeyedAdapter((count) => (count === 2 ? { calls: [{ id: "c-echo", name: "echo", arguments: '{"text":"a"}' }] } : { text: "done" }));
    const opts = options(adapter, [noting]);
    const [answered] = await driveTurn({ ...turnToStart(log), input: "hi" }, async (position) => {
      const receipt = await advanceTurn(log, opts, position);
      return receipt.next.kind === "tool" ? { ...receipt, next: { kind: "done", reason: "completed" } } : receipt;
    });
    const position: TurnPosition = { turn: 0, head: answered!.to, input: "hi", previous: { ...answered!, next: { kind: "tool", callId: "c-echo" } } };
    const live = await advanceTurn(log, opts, position);
    expect(live.queued).toEqual([{ content: [{ type: "text", text: "a note" }], source: "tool-context" }]);
    expect(await advanceTurn(log, opts, { ...position, previous: { ...position.previous!, queued: live.queued! } })).toEqual(live);
    const afterTool: TurnPosition = { turn: 0, head: live.to, input: "hi", previous: live };
    const answeredAgain = await advanceTurn(log, opts, afterTool);
    expect(answeredAgain.queued).toBeUndefined();
    expect(await advanceTurn(log, opts, afterTool)).toEqual(answeredAgain);
    // The step's end lost: the close unit carries the queued context on.
    const beforeEnd = reloaded(log.slice(0, live.to - 1));
    expect((await advanceTurn(beforeEnd, opts, { ...position, head: live.to - 1, previous: live })).queued).toEqual(live.queued);
    // The next step opened with the context and the process died before its dispatch: no context left pending.
    const opened = reloaded(log.slice(0, log.slice().map((event) => event.type).lastIndexOf("user/message") + 1));
    await driveTurn({ turn: 0, head: opened.length, input: "hi" }, (next) => advanceTurn(opened, opts, next.head === opened.length ? { ...next, previous: live } : next));
    expect(timeless(opened)).toEqual(timeless(log));
    expect(timeless(log)).toEqual(timeless((await plainRun((count) => (count === 2 ? { calls: [{ id: "c-echo", name: "echo", arguments: '{"text":"a"}' }] } : { text: "done" }), [noting])).log));
  });

  it("records the input's source", async () => {
    const log = newLog();
    await drive(log, options(new RequestKeyedAdapter()), "hi", "api");
    expect(typed(log.slice(), "user/message")[0]?.data).toMatchObject({ source: "api" });
  });

  it("refuses a step limit that is not a whole number of at least 1", async () => {
    await expect(drive(newLog(), options(new RequestKeyedAdapter(), [echoTool], { maxSteps: 0 }))).rejects.toMatchObject({ code: "AGENT_INVALID_OPTIONS", message: "maxSteps must be a whole number of at least 1, not 0" });
    await expect(drive(newLog(), options(new RequestKeyedAdapter(), [echoTool], { maxSteps: 1.5 }))).rejects.toMatchObject({ code: "AGENT_INVALID_OPTIONS" });
    await expect(drive(newLog(), { ...options(new RequestKeyedAdapter()), config: { provider: "", model: "m" } })).rejects.toMatchObject({ code: "AGENT_INVALID_OPTIONS", message: expect.stringMatching(/^invalid config/) });
  });

  it("renders the system prompt at every step, and runs without prompt or tools, as Agent.run does", async () => {
    const prompt = ({ step }: { step: number }) => `step ${step}`;
    const log = newLog();
    await drive(log, options(new RequestKeyedAdapter(), [echoTool], { systemPrompt: prompt }));
    const plain = newLog();
    await new Agent({ log: plain, ...options(new RequestKeyedAdapter()), systemPrompt: prompt }).run("hi");
    expect(timeless(log)).toEqual(timeless(plain));
    const bare = newLog();
    const { systemPrompt: _prompt, tools: _tools, ...rest } = options(new RequestKeyedAdapter((count) => ({ text: `seen ${count}` })));
    await drive(bare, rest);
    const plainBare = newLog();
    await new Agent({ log: plainBare, ...rest }).run("hi");
    expect(timeless(bare)).toEqual(timeless(plainBare));
  });

  it("tells each tool its call's position among the answer's calls, text blocks aside", async () => {
    const where = defineTool({ name: "echo", description: "Where am I", parameters: z.object({ text: z.string() }), execute: (_args, context) => `call ${context.index}` });
    const plan = (count: number): PlannedAnswer =>
      count === 2 ? { text: "Two calls.", calls: [{ id: "c-1", name: "echo", arguments: '{"text":"a"}' }, { id: "c-2", name: "echo", arguments: '{"text":"b"}' }] } : { text: "done" };
    const log = newLog();
    await drive(log, options(new RequestKeyedAdapter(plan), [where]));
    expect(typed(log.slice(), "tool/result").map((event) => (event.data as { content: { text: string }[] }).content[0]?.text)).toEqual(["call 0", "call 1"]);
    expect(timeless(log)).toEqual(timeless((await plainRun(plan, [where])).log));
  });
});

describe("a session of several durable turns", () => {
  it("runs each turn's payment once, though the provider reuses the call id, and ends each turn with nothing pending", async () => {
    const runs = { count: 0 };
    const plan = (count: number): PlannedAnswer => (count % 4 === 2 ? { calls: [{ id: "c-pay", name: "pay", arguments: '{"cents":1}' }] } : { text: "paid" });
    const adapter = new RequestKeyedAdapter(plan);
    const opts = options(adapter, [paymentTool(runs)]);
    const log = newLog();
    await drive(log, opts, "pay one");
    await drive(log, opts, "pay another");
    expect(runs.count).toBe(2);
    expect(typed(log.slice(), "tool/intent")).toHaveLength(2);
    expect(typed(log.slice(), "turn/end").map((event) => event.data)).toEqual([
      { turn: 0, reason: "completed" },
      { turn: 1, reason: "completed" },
    ]);
    expect(typed(log.slice(), "user/message").map((event) => (event.data as { content: { text: string }[] }).content[0]?.text)).toEqual(["pay one", "pay another"]);
  });

  it("logs what a new Agent per turn logs (each turn a new loop instance), and runs two payments of one answer", async () => {
    const runs = { count: 0 };
    const plan = (count: number): PlannedAnswer =>
      count === 2 ? { calls: [{ id: "p-1", name: "pay", arguments: '{"cents":1}' }, { id: "p-2", name: "pay", arguments: '{"cents":2}' }] } : { text: "paid" };
    const log = newLog();
    await drive(log, options(new RequestKeyedAdapter(plan), [paymentTool(runs)]), "pay both");
    await drive(log, options(new RequestKeyedAdapter(plan), [paymentTool(runs)]), "thanks");
    expect(runs.count).toBe(2);
    const plain = newLog();
    for (const input of ["pay both", "thanks"]) await new Agent({ log: plain, ...options(new RequestKeyedAdapter(plan), [paymentTool({ count: 0 })]) }).run(input);
    expect(timeless(log).filter(({ type }) => type !== "tool/intent")).toEqual(timeless(plain));
  });

  it("says how an earlier turn ended, whatever the later ones did", async () => {
    const log = newLog();
    await drive(log, options(new RequestKeyedAdapter(), [echoTool], { maxSteps: 1 }));
    await drive(log, options(new RequestKeyedAdapter(), [echoTool], { maxSteps: 1 }));
    expect(typed(log.slice(), "turn/end").map((event) => (event.data as { reason: string }).reason)).toEqual(["max-steps", "completed"]);
    expect(await advanceTurn(log, options(new RequestKeyedAdapter()), { turn: 0, head: log.length, input: "hi" })).toMatchObject({ next: { kind: "done", reason: "max-steps" } });
  });

  it("finishes a one-step turn left dispatched, with no input left pending, and says how an earlier turn ended", async () => {
    const adapter = new RequestKeyedAdapter((count) => (count > 2 ? { text: "again" } : { text: "first" }));
    const opts = options(adapter, [echoTool], { maxSteps: 3 });
    const whole = newLog();
    await drive(whole, opts, "one");
    await drive(whole, opts, "two");
    const secondDispatch = whole.slice().map((event) => event.type).lastIndexOf("request/dispatch");
    const cut = reloaded(whole.slice(0, secondDispatch + 1));
    const head = whole.slice().map((event) => event.type).indexOf("turn/end") + 1;
    await driveTurn({ turn: 1, head, input: "two" }, (position) => advanceTurn(cut, opts, position));
    expect(timeless(cut)).toEqual(timeless(whole));
    expect(typed(cut.slice(), "turn/end").at(-1)?.data).toEqual({ turn: 1, reason: "completed" });
    expect(await advanceTurn(cut, opts, { turn: 0, head: cut.length, input: "one" })).toMatchObject({ next: { kind: "done", reason: "completed" } });
  });
});
