import { LlmError } from "dsh-llm";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { Agent } from "./agent.js";
import { advanceTurn, driveTurn, turnToStart, type TurnPosition } from "./durable.js";
import type { DurableTurnOptions } from "./durable-loop.js";
import type { StepReceipt } from "./durable-receipt.js";
import { createAgentRegistry } from "./register.js";
import { echoTool, baseConfig, body } from "./test-support/harness.js";
import { RequestKeyedAdapter, paymentTool, reloaded, runtimeOf, timeless } from "./test-support/durable.js";

function setup(withPayment = false) {
  const adapter = new RequestKeyedAdapter(withPayment);
  const runs = { count: 0 };
  const options: DurableTurnOptions = {
    runtime: runtimeOf(adapter),
    config: baseConfig,
    systemPrompt: "You are a test.",
    tools: withPayment ? [echoTool, paymentTool(runs)] : [echoTool],
    retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 },
  };
  return { adapter, runs, options };
}

/** Drives a whole turn over `log`, each unit straight through. */
async function drive(log: EventLog, options: DurableTurnOptions, input = "hi") {
  const start = { ...turnToStart(log), input };
  return driveTurn(start, (position) => advanceTurn(log, options, position));
}

describe("a durable turn", () => {
  it("logs what Agent.run logs for the same turn, one unit per answer, call and step end", async () => {
    const plain = setup();
    const plainLog = new EventLog({ registry: createAgentRegistry() });
    await new Agent({ log: plainLog, ...plain.options, config: baseConfig }).run("hi");
    const durable = setup();
    const log = new EventLog({ registry: createAgentRegistry() });
    const receipts = await drive(log, durable.options);
    expect(timeless(log)).toEqual(timeless(plainLog));
    expect(receipts.map((receipt) => receipt.next)).toEqual([{ kind: "tool", callId: "c-echo" }, { kind: "model" }, { kind: "done", reason: "completed" }]);
    expect(durable.adapter.received.map(body)).toEqual(plain.adapter.received.map(body));
    // Each receipt points into the log: consecutive ranges, the answer's usage carried to the step's end.
    expect(receipts.map(({ from, to }) => [from, to])).toEqual([
      [0, 7],
      [7, 9],
      [9, 14],
    ]);
    expect(receipts[0]).toMatchObject({ requestHash: expect.stringMatching(/^[0-9a-f]{64}$/), responseHash: expect.stringMatching(/^[0-9a-f]{64}$/), answer: { finishReason: "tool-calls", usage: { inputTokens: 20 } } });
    expect(log.get(8)).toMatchObject({ type: "step/end", data: { usage: { inputTokens: 20 }, finishReason: "tool-calls" } });
    expect(receipts[1]).not.toHaveProperty("requestHash");
  });

  it("sends nothing for a unit whose events are logged but whose receipt the engine lost", async () => {
    const { adapter, options } = setup();
    const log = new EventLog({ registry: createAgentRegistry() });
    const start: TurnPosition = { ...turnToStart(log), input: "hi" };
    const first = await advanceTurn(log, options, start);
    // The engine did not record `first` and runs the unit again at the same position.
    const again = await advanceTurn(log, options, start);
    expect(adapter.received).toHaveLength(1);
    // The same receipt, but for the answer's usage: until the step's end logs it, only the receipt held it.
    const { answer, ...logged } = first;
    expect(answer?.usage).toBeDefined();
    expect(again).toEqual(logged);
  });

  it("rebuilds a tool unit's receipt from the log as the unit returned it, the answer still carried", async () => {
    const { adapter, runs, options } = setup(true);
    const log = new EventLog({ registry: createAgentRegistry() });
    const answered = await advanceTurn(log, options, { ...turnToStart(log), input: "hi" });
    const position: TurnPosition = { turn: 0, head: answered.to, input: "hi", previous: answered };
    const live = await advanceTurn(log, options, position);
    expect(live).toMatchObject({ next: { kind: "tool", callId: "c-pay" }, answer: answered.answer });
    expect(await advanceTurn(log, options, position)).toEqual(live);
    expect(adapter.received).toHaveLength(1);
    expect(runs.count).toBe(0);
  });

  it("sends the same request again when the unit's events were lost with it (a rolled-back transaction)", async () => {
    const { adapter, options } = setup();
    const log = new EventLog({ registry: createAgentRegistry() });
    const start: TurnPosition = { ...turnToStart(log), input: "hi" };
    await advanceTurn(log, options, start);
    // The process died before its transaction committed: what the next process loads has nothing of the unit.
    const fresh = reloaded([]);
    const receipts = await driveTurn(start, (position) => advanceTurn(fresh, options, position));
    expect(receipts.at(-1)?.next).toEqual({ kind: "done", reason: "completed" });
    expect(adapter.received).toHaveLength(3);
    expect(body(adapter.received[1]!)).toEqual(body(adapter.received[0]!));
    const uncrashed = new EventLog({ registry: createAgentRegistry() });
    await drive(uncrashed, setup().options);
    expect(timeless(fresh)).toEqual(timeless(uncrashed));
  });

  it("finishes a step left open between its appends, sending its logged request again without a second dispatch", async () => {
    const { adapter, options } = setup();
    const log = new EventLog({ registry: createAgentRegistry() });
    await drive(log, options);
    const dispatchSeq = log.slice().findIndex((event) => event.type === "request/dispatch");
    // A store without the engine's transaction kept the dispatch; the process died waiting for the answer.
    const cut = reloaded(log.slice(0, dispatchSeq + 1));
    const receipts = await driveTurn({ turn: 0, head: 0, input: "hi" }, (position) => advanceTurn(cut, options, position));
    expect(receipts[0]).toMatchObject({ from: 0, to: dispatchSeq + 1, next: { kind: "model" } });
    expect(timeless(cut)).toEqual(timeless(log));
    expect(adapter.received).toHaveLength(4);
    expect(body(adapter.received[2]!)).toEqual(body(adapter.received[0]!));
  });

  it("logs a failed request's step and turn ends, and reports it in the receipt instead of throwing", async () => {
    const { adapter, options } = setup();
    adapter.failWith = new LlmError("LLM_BAD_REQUEST", "no", { retryable: false });
    const log = new EventLog({ registry: createAgentRegistry() });
    const receipts = await drive(log, options);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]?.next).toEqual({ kind: "done", reason: "error" });
    expect(log.slice().slice(-2).map((event) => [event.type, (event.data as { reason: string }).reason])).toEqual([
      ["step/end", "error"],
      ["turn/end", "error"],
    ]);
  });

  it("ends the turn at the step limit, as Agent.run does", async () => {
    const { options } = setup();
    const log = new EventLog({ registry: createAgentRegistry() });
    const receipts = await drive(log, { ...options, maxSteps: 1 });
    expect(receipts.at(-1)?.next).toEqual({ kind: "done", reason: "max-steps" });
    const plainLog = new EventLog({ registry: createAgentRegistry() });
    await new Agent({ log: plainLog, ...setup().options, maxSteps: 1 }).run("hi");
    expect(timeless(log)).toEqual(timeless(plainLog));
  });
});

describe("a tool not safe to rerun", () => {
  /** Runs the turn until the unit that runs `pay`, and returns the log as the intent's commit left it and the receipt before. */
  async function crashDuringPayment() {
    const { adapter, runs, options } = setup(true);
    const log = new EventLog({ registry: createAgentRegistry() });
    let committedApart = -1;
    const apart: DurableTurnOptions = { ...options, commitApart: async (work) => {
      const result = await work();
      committedApart = log.length;
      return result;
    } };
    const receipts: StepReceipt[] = [];
    await driveTurn({ ...turnToStart(log), input: "hi" }, async (position) => {
      const receipt = await advanceTurn(log, apart, position);
      receipts.push(receipt);
      if (receipt.next.kind === "tool" && receipt.next.callId === "c-pay") throw new StopHere();
      return receipt;
    }).catch((error: unknown) => {
      if (!(error instanceof StopHere)) throw error;
    });
    const before = receipts.at(-1)!;
    await advanceTurn(log, apart, { turn: 0, head: before.to, input: "hi", previous: before });
    expect(runs.count).toBe(1);
    // The process dies after the payment ran, before its result committed: only the intent survives.
    return { adapter, runs, options, before, survived: reloaded(log.slice(0, committedApart)) };
  }

  class StopHere extends Error {}

  it("logs its intent before it runs; after a crash the call is reported uncertain, not run again", async () => {
    const { runs, options, before, survived } = await crashDuringPayment();
    expect(survived.get(survived.length - 1)).toMatchObject({ type: "tool/intent", data: { callId: "c-pay", toolName: "pay" } });
    const recovered = await advanceTurn(survived, options, { turn: 0, head: before.to, input: "hi", previous: before });
    expect(recovered.next).toEqual({ kind: "tool", callId: "c-pay" });
    const finished = await driveTurn({ turn: 0, head: before.to, input: "hi" }, (position) =>
      advanceTurn(survived, options, position.head === before.to ? { ...position, previous: before } : position),
    );
    expect(finished.at(-1)?.next).toEqual({ kind: "done", reason: "completed" });
    expect(runs.count).toBe(1);
    const result = survived.slice().find((event) => event.type === "tool/result" && (event.data as { callId: string }).callId === "c-pay");
    expect(result?.data).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/^Error \[TOOL_UNCERTAIN\]: not run again/) }] });
  });

  it("runs again when onUncertainCall says so, and tells it which call", async () => {
    const { runs, options, before, survived } = await crashDuringPayment();
    const asked: unknown[] = [];
    const decide: DurableTurnOptions = { ...options, onUncertainCall: (call) => {
      asked.push(call);
      return "run-again";
    } };
    await advanceTurn(survived, decide, { turn: 0, head: survived.length, input: "hi", previous: before });
    expect(asked).toEqual([{ turn: 0, step: 0, callId: "c-pay", toolName: "pay", arguments: '{"cents":100}' }]);
    expect(runs.count).toBe(2);
    expect(survived.get(survived.length - 1)).toMatchObject({ type: "step/end", data: { finishReason: "tool-calls" } });
  });
});

describe("the engine's position", () => {
  it("refuses a log shorter than the head the engine expects, and a turn other than the open one", async () => {
    const { options } = setup();
    const log = new EventLog({ registry: createAgentRegistry() });
    await expect(advanceTurn(log, options, { turn: 0, head: 3, input: "hi" })).rejects.toMatchObject({ code: "AGENT_TURN_CONFLICT", message: "the log has 0 events; turn 0 expected at least 3" });
    await expect(advanceTurn(log, options, { turn: 1, head: 0, input: "hi" })).rejects.toMatchObject({ code: "AGENT_TURN_CONFLICT", message: "the log has 0 turns, so turn 1 cannot start yet" });
    await advanceTurn(log, options, { turn: 0, head: 0, input: "hi" });
    expect(() => turnToStart(log)).toThrow(expect.objectContaining({ code: "AGENT_TURN_CONFLICT", message: expect.stringMatching(/^turn 0 is still open/) }));
    await expect(advanceTurn(log, options, { turn: 1, head: log.length, input: "hi" })).rejects.toMatchObject({ code: "AGENT_TURN_CONFLICT", message: "turn 0 is open in the log, not turn 1" });
  });

  it("says done, appending nothing, for a turn that has ended", async () => {
    const { adapter, options } = setup();
    const log = new EventLog({ registry: createAgentRegistry() });
    await drive(log, options);
    const length = log.length;
    expect(await advanceTurn(log, options, { turn: 0, head: length, input: "hi" })).toEqual({ turn: 0, from: length, to: length, next: { kind: "done", reason: "completed" } });
    expect(adapter.received).toHaveLength(2);
    expect(turnToStart(log)).toEqual({ turn: 1, head: length });
  });
});
