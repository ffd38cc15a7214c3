import { LlmError, freezeRequest, markAgentLoopRequest, markUnsent, type FrozenGenerateOptions, type Message } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { compareRequests, firstDifference } from "./compare.js";
import { reconstructRequests } from "./reconstruct.js";
import { harness } from "./test-support/harness.js";

/** An agent whose runtime's listener collects what was sent, as a user's would. */
function watched(...args: Parameters<typeof harness>) {
  const parts = harness(...args);
  const sent: FrozenGenerateOptions[] = [];
  parts.runtime.on("llm/stream", ({ request }) => sent.push(request));
  return { ...parts, sent };
}

/** A loop-marked copy of `request` with `edit` applied to its messages. */
function altered(request: FrozenGenerateOptions, edit: (messages: Message[]) => Message[]): FrozenGenerateOptions {
  const { signal: _signal, ...rest } = request;
  return markAgentLoopRequest(freezeRequest({ ...structuredClone(rest), messages: edit(structuredClone([...request.messages])) }));
}

describe("compareRequests", () => {
  it("finds the sent requests equal to the rebuilt ones, counting a retried request once", async () => {
    const { agent, log, sent } = watched((_request, index) =>
      index === 0 ? { error: new LlmError("LLM_RATE_LIMITED", "slow down", { status: 429 }) } : index === 1 ? { toolCalls: [{ name: "echo", arguments: '{"text":"a"}' }] } : { text: "done" },
    );
    await agent.run("go");
    expect(sent).toHaveLength(3);
    expect(await compareRequests(log, sent)).toEqual({ same: true, compared: 2 });
  });

  it("names the first differing field of the first request that differs, with its turn and step", async () => {
    const { agent, log, sent } = watched((_request, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"a"}' }] } : { text: "done" }));
    await agent.run("go");
    const edited = altered(sent[1]!, (messages) => messages.map((message, i) => (i === 1 ? { ...message, content: [{ type: "text", text: "went" }] } : message)) as Message[]);
    expect(await compareRequests(log, [sent[0]!, edited])).toEqual({
      same: false,
      compared: 1,
      difference: { index: 1, turn: 0, step: 1, detail: "messages[1].content[0].text" },
    });
    const reordered = altered(sent[0]!, (messages) => messages);
    const { config, ...rest } = reordered;
    const swapped = markAgentLoopRequest(freezeRequest({ messages: rest.messages, config, ...(rest.tools === undefined ? {} : { tools: rest.tools }) }));
    expect((await compareRequests(log, [swapped, sent[1]!])).difference).toEqual({ index: 0, turn: 0, step: 0, detail: "config (keys differ in name or order)" });
    const shorter = altered(sent[0]!, (messages) => messages.slice(0, 1));
    expect((await compareRequests(log, [shorter, sent[1]!])).difference?.detail).toBe("messages[1]");
  });

  it("reports a request only one side has", async () => {
    const { agent, log, sent } = watched(() => ({ text: "done" }));
    await agent.run("one");
    await agent.run("two");
    expect(await compareRequests(log, sent.slice(0, 1))).toEqual({
      same: false,
      compared: 1,
      difference: { index: 1, turn: 1, step: 0, detail: "the log has a request that was not sent" },
    });
    expect(await compareRequests(log.slice().slice(0, 8), sent)).toMatchObject({ same: false, difference: { index: 1, detail: "a request was sent that the log does not have" } });
  });

  it("leaves out requests that are not the loop's, and compares from a seq", async () => {
    const { agent, log, sent } = watched(() => ({ text: "done" }));
    await agent.run("one");
    const from = log.length;
    const before = sent.length;
    await agent.run("two");
    const summary = freezeRequest({ config: { provider: "scripted", model: "m" }, messages: [{ role: "user", content: [{ type: "text", text: "summarize" }], source: "user" }] });
    expect(await compareRequests(log, [summary, ...sent.slice(before)], { fromSeq: from })).toEqual({ same: true, compared: 1 });
    expect((await compareRequests(log, sent.slice(before))).same).toBe(false);
  });

  it("is not thrown off by a turn that failed before its request was dispatched", async () => {
    const { agent, log, sent } = watched(() => ({ text: "done" }));
    await agent.run("one");
    agent.reconfigure({ provider: "nobody", model: "m" });
    await expect(agent.run("two")).rejects.toMatchObject({ code: "LLM_NO_ADAPTER" });
    agent.reconfigure({ provider: "scripted", model: "model-a" });
    await agent.run("three");
    expect(sent).toHaveLength(2);
    expect(await compareRequests(log, sent)).toEqual({ same: true, compared: 2 });
  });
});

describe("firstDifference", () => {
  it("names the first differing path through objects and arrays, key order included", () => {
    expect(firstDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, "")).toBeUndefined();
    expect(firstDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }, "")).toBe("a[1].b");
    expect(firstDifference({ a: [1] }, { a: [1, 2] }, "")).toBe("a[1]");
    expect(firstDifference({ a: [1, 2] }, { a: [1] }, "")).toBe("a[1]");
    expect(firstDifference({ a: 1 }, { a: 1, b: 2 }, "")).toBe("b (keys differ in name or order)");
    expect(firstDifference({ a: 1, b: 2 }, { a: 1 }, "")).toBe("b (keys differ in name or order)");
    expect(firstDifference({ a: 1, b: 2 }, { b: 2, a: 1 }, "")).toBe("a (keys differ in name or order)");
    expect(firstDifference({ a: [] }, { a: {} }, "")).toBe("a");
    expect(firstDifference({ a: {} }, { a: [] }, "")).toBe("a");
    expect(firstDifference({ a: null }, { a: {} }, "")).toBe("a");
    expect(firstDifference({ a: {} }, { a: null }, "")).toBe("a");
    expect(firstDifference({ a: "1" }, { a: 1 }, "")).toBe("a");
    expect(firstDifference([{ x: 1 }], [{ x: 1 }], "m")).toBeUndefined();
  });
});

describe("compareRequests with a seq to start from and requests never sent", () => {
  it("includes the request dispatched exactly at fromSeq", async () => {
    const { agent, log, sent } = watched(() => ({ text: "done" }));
    await agent.run("one");
    await agent.run("two");
    const second = log.slice().filter((event) => event.type === "request/dispatch")[1]!.seq;
    expect(await compareRequests(log, sent.slice(1), { fromSeq: second })).toEqual({ same: true, compared: 1 });
    expect(await compareRequests(log, sent.slice(1), { fromSeq: second + 1 })).toMatchObject({ same: false, difference: { detail: "a request was sent that the log does not have" } });
  });

  it("accepts a rebuilt request that never left the process whether or not the sent list has it", async () => {
    const { agent, log, sent } = watched((_request, index) => (index === 1 ? { error: markUnsent(new LlmError("LLM_INVALID_REQUEST", "refused before sending")) } : { text: "done" }));
    await agent.run("one");
    await expect(agent.run("two")).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
    const [first, unsent] = sent;
    expect((await reconstructRequests(log)).map((request) => request.sent)).toEqual([true, false]);
    // At the end of the log, and before a request that was sent.
    expect(await compareRequests(log, [first!])).toEqual({ same: true, compared: 1 });
    expect(await compareRequests(log, [first!, unsent!])).toEqual({ same: true, compared: 2 });
    await agent.run("three");
    expect(await compareRequests(log, [first!, sent[2]!])).toEqual({ same: true, compared: 2 });
    expect(await compareRequests(log, [])).toMatchObject({ same: false, compared: 0, difference: { index: 0, detail: "the log has a request that was not sent" } });
  });
});
