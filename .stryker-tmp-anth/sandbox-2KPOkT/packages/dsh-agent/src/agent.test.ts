import { isAgentLoopRequest, LlmError, type LlmCallConfig } from "dsh-llm";
import { EventLog, EventRegistry } from "dsh-log";
import { describe, expect, it } from "vitest";
import { foldRequestHeader, requestHeaderEvent, selectionFromHeader, type RequestHeaderSnapshot } from "dsh-header";
import { reconstructRequests } from "./reconstruct.js";
import { body, echoTool, harness, types } from "./test-support/harness.js";

describe("Agent.run", () => {
  it("logs a plain turn in pipeline order and dispatches a frozen, marked request built from the log", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "hello" }));
    const result = await agent.run("hi");
    expect(result).toMatchObject({ turn: 0, reason: "completed", steps: 1, text: "hello" });
    expect(types(log)).toEqual([
      "turn/start",
      "step/start",
      "system/message",
      "user/message",
      "request/header",
      "request/dispatch",
      "assistant/message",
      "step/end",
      "turn/end",
    ]);
    const [request] = adapter.received;
    expect(isAgentLoopRequest(request)).toBe(true);
    expect(request?.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(() => {
      (request!.messages as unknown[]).push({});
    }).toThrow(TypeError);
    expect(() => {
      (request!.config as { model: string }).model = "other";
    }).toThrow(TypeError);
    const rebuilt = await reconstructRequests(log);
    expect(rebuilt.map((r) => body(r.request))).toEqual([body(request!)]);
    expect(log.get(4)?.data).toMatchObject({ reason: "initial", header: { adapterDefaults: { maxTokens: 4096 } } });
  });

  it("runs tool calls in model order and feeds results into the next step", async () => {
    const { agent, adapter, log } = harness((_request, index) =>
      index === 0
        ? { toolCalls: [{ name: "echo", arguments: '{"text":"a"}' }, { name: "echo", arguments: '{"text":"b"}' }] }
        : { text: "done" },
    );
    const result = await agent.run("go");
    expect(result).toMatchObject({ reason: "completed", steps: 2, text: "done" });
    const second = adapter.received[1]!;
    expect(second.messages.slice(-3)).toMatchObject([
      { role: "assistant" },
      { role: "tool", callId: "call-0-0", content: [{ type: "text", text: "echo: a" }], isError: false },
      { role: "tool", callId: "call-0-1", content: [{ type: "text", text: "echo: b" }], isError: false },
    ]);
    // A later step of the same series carries the latest snapshot: only one header in the log.
    expect(types(log).filter((type) => type === "request/header")).toHaveLength(1);
  });

  it("returns the turn's token totals, added up over its steps' reported usage", async () => {
    const { agent, log } = harness((_request, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"a"}' }] } : { text: "done" }));
    const result = await agent.run("go");
    const reported = log.slice().flatMap((event) => (event.type === "step/end" ? [(event.data as { usage: { inputTokens: number } }).usage] : []));
    expect(reported).toHaveLength(2);
    expect(result.usage).toEqual({
      inputTokens: reported.reduce((sum, usage) => sum + usage.inputTokens, 0),
      outputTokens: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(result.usage.inputTokens).toBeGreaterThan(reported[0]!.inputTokens);
    const blocked = harness(() => ({ text: "x" }));
    blocked.agent.on("agent/pre-step", () => ({ action: "reject" }));
    expect((await blocked.agent.run("no")).usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it.each([
    ["an unknown tool", { name: "nope", arguments: "{}" }, /Error \[TOOL_UNKNOWN\]/],
    ["invalid JSON", { name: "echo", arguments: "{not json" }, /Error \[TOOL_INVALID_JSON\]/],
    ["invalid arguments", { name: "echo", arguments: '{"text":1}' }, /Error \[TOOL_INVALID_ARGUMENTS\]/],
  ])("returns %s to the model as an error result", async (_what, call, message) => {
    const { agent, adapter } = harness((_r, index) => (index === 0 ? { toolCalls: [call] } : { text: "ok" }));
    await agent.run("go");
    const result = adapter.received[1]!.messages.at(-1);
    expect(result).toMatchObject({ role: "tool", isError: true });
    expect(JSON.stringify(result)).toMatch(message);
  });

  it("sends an inject() made during the request waterfall with the next request, not this one", async () => {
    const { agent, adapter } = harness((_r, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"x"}' }] } : { text: "ok" }));
    let injected = false;
    agent.on("agent/request", () => {
      if (!injected) agent.inject("late context");
      injected = true;
    });
    await agent.run("go");
    const texts = (index: number) => JSON.stringify(adapter.received[index]!.messages);
    expect(texts(0)).not.toContain("late context");
    expect(texts(1)).toContain("late context");
  });

  it("queues tool additionalContexts for the next request", async () => {
    const { agent, adapter } = harness((_r, index) => (index === 0 ? { toolCalls: [{ name: "ctx", arguments: "{}" }] } : { text: "ok" }), {
      tools: [
        {
          schema: { name: "ctx", description: "adds context", parameters: { type: "object" } },
          invoke: async () => ({ content: [{ type: "text", text: "ran" }], isError: false, additionalContexts: ["remember this"] }),
        },
      ],
    });
    await agent.run("go");
    expect(adapter.received[1]!.messages.at(-1)).toMatchObject({ role: "user", source: "tool-context" });
  });

  it("lets agent/pre-step add messages to this request, or reject the step", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    const off = agent.on("agent/pre-step", () => ({ action: "enter", messages: ["from pre-step"] }));
    await agent.run("first");
    expect(adapter.received[0]!.messages.at(-1)).toMatchObject({ role: "user", source: "pre-step" });
    off();
    agent.on("agent/pre-step", () => ({ action: "reject", reason: "not now" }));
    const blocked = await agent.run("second");
    expect(blocked).toMatchObject({ reason: "blocked", steps: 0 });
    expect(adapter.received).toHaveLength(1);
    expect(types(log).slice(-3)).toEqual(["turn/start", "step/reject", "turn/end"]);
    expect(log.get(log.length - 2)?.data).toEqual({ turn: 1, step: 0, reason: "not now" });
  });

  it("lets agent/request replace the frozen seed only, logging a change snapshot", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }));
    await agent.run("one");
    let seen: unknown;
    agent.on("agent/request", (seed) => {
      seen = seed;
      return { ...seed, model: "model-b" } as LlmCallConfig;
    });
    await agent.run("two");
    expect(Object.isFrozen(seen)).toBe(true);
    expect(() => {
      (seen as { model: string }).model = "forged";
    }).toThrow(TypeError);
    expect(adapter.received[1]!.config.model).toBe("model-b");
    const headers = log.slice().filter((event) => requestHeaderEvent.is(event));
    expect(headers.map((event) => (event.data as { reason: string }).reason)).toEqual(["initial", "change"]);
  });

  it("writes a series snapshot when a step starts a request series with an unchanged header", async () => {
    const { agent, log } = harness(() => ({ text: "ok" }));
    await agent.run("one");
    agent.on("agent/pre-step", () => ({ action: "enter", startsRequestSeries: true }));
    await agent.run("two");
    const reasons = log.slice().filter((event) => requestHeaderEvent.is(event)).map((event) => (event.data as { reason: string }).reason);
    expect(reasons).toEqual(["initial", "series"]);
    expect(log.slice().find((event) => event.type === "step/start" && (event.data as { turn: number }).turn === 1)?.data).toEqual({
      turn: 1,
      step: 0,
      startsRequestSeries: true,
    });
  });

  it("retries a retryable failure with the same frozen request and logs each retry", async () => {
    const { agent, adapter, log } = harness((_r, index) =>
      index < 2 ? { partialText: "par", error: new LlmError("LLM_RATE_LIMITED", "slow down", { status: 429 }) } : { text: "ok" },
    );
    const result = await agent.run("go");
    expect(result.reason).toBe("completed");
    expect(adapter.received).toHaveLength(3);
    expect(adapter.received[1]).toBe(adapter.received[0]);
    expect(adapter.received[2]).toBe(adapter.received[0]);
    const retries = log.slice().filter((event) => event.type === "request/retry");
    expect(retries.map((event) => event.data)).toEqual([
      { turn: 0, step: 0, attempt: 1, delayMs: 0, error: { code: "LLM_RATE_LIMITED", message: "slow down", status: 429 } },
      { turn: 0, step: 0, attempt: 2, delayMs: 0, error: { code: "LLM_RATE_LIMITED", message: "slow down", status: 429 } },
    ]);
    expect(log.slice().filter((event) => event.type === "assistant/message")).toHaveLength(1);
  });

  it("logs a non-retryable failure, closes the turn and throws", async () => {
    const { agent, log } = harness(() => ({ error: new LlmError("LLM_AUTH", "bad key", { status: 401 }) }));
    await expect(agent.run("go")).rejects.toMatchObject({ code: "LLM_AUTH" });
    expect(log.slice().slice(-2).map((event) => [event.type, (event.data as { reason: string }).reason])).toEqual([
      ["step/end", "error"],
      ["turn/end", "error"],
    ]);
  });

  it("aborts a streaming request through its AbortSignal and logs the aborted ends", async () => {
    const { agent, log } = harness(() => ({ hang: true }));
    const controller = new AbortController();
    const running = agent.run("go", { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(running).resolves.toMatchObject({ reason: "aborted" });
    expect(types(log).slice(-2)).toEqual(["step/end", "turn/end"]);
  });

  it("closes tool calls of an answer cut off at the token limit and ends with max-tokens", async () => {
    const { agent, log } = harness(() => ({ toolCalls: [{ name: "echo", arguments: '{"te' }], finishReason: "length" }));
    await expect(agent.run("go")).resolves.toMatchObject({ reason: "max-tokens" });
    const result = log.slice().find((event) => event.type === "tool/result");
    expect(JSON.stringify(result?.data)).toContain("TOOL_NOT_RUN");
  });

  it("stops at maxSteps", async () => {
    const { agent } = harness(() => ({ toolCalls: [{ name: "echo", arguments: '{"text":"again"}' }] }), { maxSteps: 3 });
    await expect(agent.run("loop")).resolves.toMatchObject({ reason: "max-steps", steps: 3 });
  });

  it("refuses a second agent on the same log while the first runs a turn, which then completes", async () => {
    let release: () => void = () => undefined;
    const first = harness((_r, index) => (index === 0 ? { hang: true } : { text: "first done" }));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = first.agent.run("one", { signal: AbortSignal.any([]) });
    const second = harness(() => ({ text: "second" }), { log: first.log });
    await expect(second.agent.run("two")).rejects.toMatchObject({ code: "AGENT_BUSY", message: "cannot start a turn: another agent is working on this log" });
    await expect(second.agent.compact()).rejects.toMatchObject({ code: "AGENT_BUSY" });
    release();
    await gate;
    first.agent.abort();
    await expect(running).resolves.toMatchObject({ reason: "aborted" });
    expect(types(first.log).filter((type) => type === "turn/start")).toHaveLength(1);
    await expect(second.agent.run("two")).resolves.toMatchObject({ reason: "completed" });
  });

  it("refuses a second concurrent turn, and any maintenance while a turn runs, naming what was refused", async () => {
    const { agent } = harness(() => ({ hang: true }));
    agent.abort(); // nothing runs yet: a no-op
    const first = agent.run("one");
    await expect(agent.run("two")).rejects.toMatchObject({ code: "AGENT_BUSY", message: "cannot start a turn while the agent is busy" });
    await expect(agent.compact()).rejects.toMatchObject({ code: "AGENT_BUSY", message: "cannot compact while the agent is busy" });
    await expect(agent.trimToolResults()).rejects.toMatchObject({ code: "AGENT_BUSY", message: "cannot trim tool results while the agent is busy" });
    await expect(agent.acceptQuarantine("sha256:00")).rejects.toMatchObject({ code: "AGENT_BUSY", message: "cannot accept a quarantine while the agent is busy" });
    agent.abort();
    await first;
  });

  it("refuses bad options in one line: a config that is not one, a log without the agent's events, an unknown hook", () => {
    expect(() => harness(() => ({ text: "ok" }), { config: { provider: "", model: "m" } })).toThrowError(
      expect.objectContaining({ code: "AGENT_INVALID_OPTIONS", message: expect.stringMatching(/^invalid config: provider/) }),
    );
    expect(() => harness(() => ({ text: "ok" }), { log: new EventLog({ registry: new EventRegistry() }) })).toThrowError(
      expect.objectContaining({ code: "AGENT_INVALID_OPTIONS", message: "the log's registry lacks the agent's events: create it with createAgentRegistry()" }),
    );
    const { agent } = harness(() => ({ text: "ok" }));
    expect(() => agent.on("agent/other" as "agent/request", () => undefined)).toThrowError(
      expect.objectContaining({ code: "AGENT_INVALID_OPTIONS", message: "unknown agent event agent/other" }),
    );
  });

  it("compacts with no options at all when the agent has none", async () => {
    const { agent } = harness((request) => (request.messages[0]?.source === "compaction" ? { text: "summary" } : { text: "ok" }));
    for (const prompt of ["one", "two", "three", "four"]) await agent.run(prompt);
    await expect(agent.compact()).resolves.toMatchObject({ outcome: "completed" });
  });

  it("writes resume on a new instance's first request; a selection restored from the log adds no drift", async () => {
    const first = harness(() => ({ text: "ok" }));
    await first.agent.run("one");
    const initial = foldRequestHeader(first.log)!;
    const second = harness(() => ({ text: "ok" }), { log: first.log, config: selectionFromHeader(initial.header) });
    await second.agent.run("two");
    await second.agent.run("three");
    const snapshots = first.log.slice().filter((event) => requestHeaderEvent.is(event)).map((event) => event.data as RequestHeaderSnapshot);
    expect(snapshots.map((snapshot) => snapshot.reason)).toEqual(["initial", "resume"]);
    // The adapter default stays a default: restoring from header.config would record it as a choice.
    expect(snapshots[1]!.header).toEqual(initial.header);
    expect(initial.header.adapterDefaults).toEqual({ maxTokens: 4096 });
  });

  it("offers a tool registered mid-session from the next step, logged as a change", async () => {
    const { agent, adapter, log } = harness(() => ({ text: "ok" }), { tools: [] });
    await agent.run("one");
    agent.tools.register(echoTool);
    await agent.run("two");
    expect(adapter.received[0]!.tools).toBeUndefined();
    expect(adapter.received[1]!.tools?.map((tool) => tool.name)).toEqual(["echo"]);
    const reasons = log.slice().filter((event) => requestHeaderEvent.is(event)).map((event) => (event.data as { reason: string }).reason);
    expect(reasons).toEqual(["initial", "change"]);
  });
});

describe("one-shot calls", () => {
  it("are never marked as loop requests, whatever their shape", async () => {
    const { agent, runtime, adapter } = harness(() => ({ text: "summary" }));
    await agent.run("hi");
    const loopRequest = adapter.received[0]!;
    const marks: boolean[] = [];
    runtime.on("llm/stream", (event) => marks.push(event.isAgentLoopRequest));
    await runtime.generate({ config: loopRequest.config, messages: loopRequest.messages });
    expect(marks).toEqual([false]);
  });
});
