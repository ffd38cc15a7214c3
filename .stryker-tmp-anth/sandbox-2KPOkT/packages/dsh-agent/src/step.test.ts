import { EventLog } from "dsh-log";
import { userMessageEvent } from "dsh-surface";
import { describe, expect, it } from "vitest";
import type { InboxItem } from "./inbox.js";
import { createAgentRegistry } from "./register.js";
import { harness, types } from "./test-support/harness.js";

const texts = (messages: readonly unknown[]) => JSON.stringify(messages);

describe("the inbox batch of a step", () => {
  it("goes back to the inbox when the step fails to open, and reaches the next request", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    const off = agent.on("agent/pre-step", () => ({ action: "enter", messages: [[{ type: "text" }] as never] }));
    agent.inject("injected earlier");
    await expect(agent.run("first input")).rejects.toMatchObject({ code: "AGENT_INVALID_HOOK_RESULT" });
    expect(adapter.received).toHaveLength(0);
    expect(types(log)).toEqual(["turn/start", "turn/end"]);
    off();
    await agent.run("second input");
    const users = adapter.received[0]!.messages.filter((message) => message.role === "user");
    expect(users.map((message) => (message.content[0] as { text: string }).text)).toEqual(["injected earlier", "first input", "second input"]);
  });

  it("goes back to the inbox when a pre-step listener rejects, with the reason logged", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    const off = agent.on("agent/pre-step", () => ({ action: "reject", reason: "rate budget spent" }));
    await expect(agent.run("kept for later")).resolves.toMatchObject({ reason: "blocked", steps: 0 });
    expect(log.slice().at(-2)).toMatchObject({ type: "step/reject", data: { turn: 0, step: 0, reason: "rate budget spent" } });
    off();
    await agent.run("now");
    expect(texts(adapter.received[0]!.messages)).toContain("kept for later");
  });

  it("logs a reject without a reason as such, and refuses an empty reason", async () => {
    const { agent, log } = harness(() => ({ text: "ok" }));
    const off = agent.on("agent/pre-step", () => ({ action: "reject" }));
    await agent.run("one");
    expect(log.slice().at(-2)?.data).toEqual({ turn: 0, step: 0 });
    off();
    agent.on("agent/pre-step", () => ({ action: "reject", reason: "" }));
    await expect(agent.run("two")).rejects.toMatchObject({ code: "AGENT_INVALID_HOOK_RESULT" });
  });

  it("lets tool additionalContexts enter through the inbox: claimed by the next step, logged inside it", async () => {
    const { agent, log } = harness((_r, index) => (index === 0 ? { toolCalls: [{ name: "ctx", arguments: "{}" }] } : { text: "ok" }), {
      tools: [
        {
          schema: { name: "ctx", description: "adds context", parameters: { type: "object" } },
          invoke: async () => ({ content: [{ type: "text", text: "ran" }], isError: false, additionalContexts: ["remember this"] }),
        },
      ],
    });
    const batches: (readonly InboxItem[])[] = [];
    agent.on("agent/pre-step", ({ batch }) => {
      batches.push(batch);
    });
    await agent.run("go");
    expect(batches[1]).toEqual([{ content: [{ type: "text", text: "remember this" }], source: "tool-context" }]);
    const events = log.slice();
    const context = events.findIndex((event) => userMessageEvent.is(event) && event.data.source === "tool-context");
    const secondStep = events.findIndex((event) => event.type === "step/start" && (event.data as { step: number }).step === 1);
    expect(context).toBeGreaterThan(secondStep);
    expect(events.slice(secondStep, context + 1).map((event) => event.type)).toEqual(["step/start", "user/message"]);
  });
});

describe("values still queued when a turn ends", () => {
  const contextTool = {
    schema: { name: "ctx", description: "adds context", parameters: { type: "object" } },
    invoke: async () => ({ content: [{ type: "text" as const, text: "ran" }], isError: false, additionalContexts: ["remember this"] }),
  };

  it("are named with their sources in the turn's end, and reach the next request of a new agent over the log", async () => {
    // The step limit ends the turn right after the tool ran, with its context still queued.
    const first = harness(() => ({ toolCalls: [{ name: "ctx", arguments: "{}" }] }), { tools: [contextTool], maxSteps: 1 });
    await expect(first.agent.run("go")).resolves.toMatchObject({ reason: "max-steps" });
    expect(first.log.slice().at(-1)).toMatchObject({
      type: "turn/end",
      data: { turn: 0, reason: "max-steps", pending: [{ content: [{ type: "text", text: "remember this" }], source: "tool-context" }] },
    });
    // Another process resumes: the value enters its first step, with its source.
    const log = EventLog.from(createAgentRegistry(), first.log.slice());
    const second = harness(() => ({ text: "ok" }), { log, tools: [contextTool] });
    await second.agent.run("next");
    const entered = log.slice(first.log.length).filter((event) => userMessageEvent.is(event)).map((event) => (event.data as { source: string }).source);
    expect(entered).toEqual(["tool-context", "user"]);
    expect(texts(second.adapter.received[0]!.messages)).toContain("remember this");
    // Once they entered a turn they are not queued again.
    const third = harness(() => ({ text: "ok" }), { log });
    await third.agent.run("later");
    expect(texts(third.adapter.received[0]!.messages).split("remember this").length).toBe(2);
  });

  it("keep a turn going: a value injected during the last step enters one more step, never left behind", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    let injected = false;
    await agent.run("go", {
      onChunk: () => {
        if (injected) return;
        injected = true;
        agent.inject("late news");
      },
    });
    expect(adapter.received).toHaveLength(2);
    expect(texts(adapter.received[1]!.messages)).toContain("late news");
    expect(log.slice().at(-1)?.data).toEqual({ turn: 0, reason: "completed" });
  });
});

describe("the system prompt", () => {
  it("reaches the log and the request exactly, whitespace included", async () => {
    const prompt = "  \n be exact \t\n";
    const { agent, adapter, log } = harness(() => ({ text: "ok" }), { systemPrompt: prompt });
    await agent.run("go");
    expect(adapter.received[0]!.messages[0]).toEqual({ role: "system", content: prompt, source: "system-prompt" });
    expect(log.slice().find((event) => event.type === "system/message")?.data).toEqual({ content: prompt, source: "system-prompt" });
  });

  it("refuses, at construction, a log whose surface does not start with a system prompt", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    await log.append(userMessageEvent.input({ content: [{ type: "text", text: "hello" }], source: "user" }));
    expect(() => harness(() => ({ text: "ok" }), { log })).toThrowError(/surface starts with user\/message at seq 0; an agent needs the system prompt at surface node 0/);
  });

  it("refuses a step on such a log when it was loaded after construction", async () => {
    const { agent, log } = harness(() => ({ text: "ok" }));
    log.load([{ seq: 0, type: "user/message", time: 1, data: { content: [{ type: "text", text: "loaded" }], source: "user" } }]);
    await expect(agent.run("go")).rejects.toMatchObject({ code: "AGENT_INVALID_LOG" });
  });

  it("refuses a prompt renderer that does not return a string", async () => {
    const { agent } = harness(() => ({ text: "ok" }), { systemPrompt: () => 42 as unknown as string });
    await expect(agent.run("go")).rejects.toMatchObject({ code: "AGENT_INVALID_OPTIONS" });
  });
});
