import { requestHeaderEvent } from "dsh-header";
import { isAgentLoopRequest, LlmError } from "dsh-llm";
import { EventLog } from "dsh-log";
import { systemMessageEvent, userMessageEvent, type SurfaceNode } from "dsh-surface";
import { describe, expect, it } from "vitest";
import { compactionRange } from "./summary.js";
import { compactionStartEvent, compactionSummaryEvent } from "./events.js";
import { createAgentRegistry } from "./register.js";
import { reconstructRequests } from "./reconstruct.js";
import { body, harness, types } from "./test-support/harness.js";

/** A surface the loop never requested over: a system prompt and two user messages. */
const systemAndTurns = () => [
  systemMessageEvent.input({ content: "s", source: "system-prompt" }),
  userMessageEvent.input({ content: [{ type: "text", text: "a" }], source: "user" }),
  userMessageEvent.input({ content: [{ type: "text", text: "b" }], source: "user" }),
  userMessageEvent.input({ content: [{ type: "text", text: "c" }], source: "user" }),
];

const node = (seq: number, type: SurfaceNode["type"]) => ({ seq, type });
const result = (seq: number) => node(seq, "tool/result");

describe("compactionRange", () => {
  it("summarizes from node 1 up to the kept tail, never splitting a call from its results", () => {
    const nodes = [
      node(0, "system/message"),
      node(1, "user/message"),
      node(2, "assistant/message"),
      node(3, "user/message"),
      node(4, "assistant/message"),
      result(5),
      result(6),
      node(7, "assistant/message"),
    ];
    expect(compactionRange(nodes, 1)).toEqual({ startIndex: 1, endIndex: 6 });
    // Keeping 3 would start the tail on a result: the cut moves back to the assistant turn that called.
    expect(compactionRange(nodes, 3)).toEqual({ startIndex: 1, endIndex: 3 });
    expect(compactionRange(nodes, 4)).toEqual({ startIndex: 1, endIndex: 3 });
    expect(compactionRange(nodes, 6)).toBeUndefined();
  });

  it("refuses to summarize fewer than two nodes", () => {
    expect(compactionRange([node(0, "system/message"), node(1, "user/message"), node(2, "assistant/message")], 1)).toBeUndefined();
  });
});

/** A scripted session whose summary calls (no tools offered, compaction source) get `summary`. */
function session(options: { contextWindow?: number; summary?: () => { text?: string; error?: LlmError } } = {}) {
  return harness(
    (request) => {
      if (request.messages[0]?.source === "compaction") return options.summary?.() ?? { text: "They talked about numbers." };
      return { text: `answer ${request.messages.length}` };
    },
    options.contextWindow === undefined ? {} : { compaction: { contextWindow: options.contextWindow, threshold: 0.5, keepRecent: 2 } },
  );
}

describe("compaction under token pressure", () => {
  it("summarizes with an unmarked one-shot call, replaces the region and writes a series snapshot next", async () => {
    const { agent, adapter, log, runtime } = session({ contextWindow: 800 });
    const marks: boolean[] = [];
    runtime.on("llm/stream", (event) => marks.push(event.isAgentLoopRequest));
    for (const prompt of ["one", "two", "three", "four"]) await agent.run(prompt);

    const kinds = types(log);
    expect(kinds).toContain("compaction/start");
    const start = log.slice().find((event) => compactionStartEvent.is(event))!;
    expect(start.data).toMatchObject({ reason: "threshold", measuredTokens: expect.any(Number) });
    const at = kinds.indexOf("compaction/start");
    expect(kinds.slice(at, at + 4)).toEqual(["compaction/start", "compaction/summary", "user/message", "compaction/end"]);
    expect(log.get(at + 1)?.data).toEqual({
      provider: "scripted",
      model: "model-a",
      maxTokens: 1024,
      range: (start.data as { range: object }).range,
      summary: "They talked about numbers.",
      usage: expect.objectContaining({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) }),
    });
    expect(log.get(at + 2)?.data).toMatchObject({ source: "compaction", replaces: { generation: 1 } });
    const nextHeader = log.slice(at).find((event) => requestHeaderEvent.is(event));
    expect(nextHeader?.data).toMatchObject({ reason: "series" });

    const summaryCalls = adapter.received.filter((request) => !isAgentLoopRequest(request));
    expect(summaryCalls.length).toBeGreaterThan(0);
    expect(marks.filter((mark) => !mark)).toHaveLength(summaryCalls.length);
    const loopRequests = adapter.received.filter((request) => isAgentLoopRequest(request));
    expect((await reconstructRequests(log)).map((r) => body(r.request))).toEqual(loopRequests.map(body));
  });

  it("leaves the surface untouched and logs why when the summary call fails", async () => {
    const { agent, log } = session({ contextWindow: 800, summary: () => ({ error: new LlmError("LLM_BAD_REQUEST", "no summaries today") }) });
    for (const prompt of ["one", "two", "three", "four"]) await agent.run(prompt);
    const failed = log.slice().filter((event) => event.type === "compaction/end");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]?.data).toEqual({ outcome: "failed", error: { code: "LLM_BAD_REQUEST", message: "no summaries today" } });
    expect(agent.surface.generation).toBe(0);
  });

  it("refuses an empty summary as a failure", async () => {
    const { agent, log } = session({ summary: () => ({ text: "   " }) });
    await agent.run("one");
    await agent.run("two");
    await expect(agent.compact({ keepRecent: 1 })).resolves.toMatchObject({ outcome: "failed" });
    expect(log.slice().at(-1)?.data).toEqual({
      outcome: "failed",
      error: { code: "AGENT_COMPACTION_EMPTY_SUMMARY", message: "the summary call returned no text" },
    });
  });

  it("fails with a code when there is no model to summarize with", async () => {
    const { agent, log } = session();
    await log.append(systemAndTurns());
    await expect(agent.compact({ keepRecent: 1 })).resolves.toMatchObject({ outcome: "failed" });
    expect(log.slice().at(-1)?.data).toMatchObject({ outcome: "failed", error: { code: "AGENT_COMPACTION_NO_MODEL" } });
  });

  it("sends the summary call exactly the envelope scalars compaction/summary logs, whatever the loop's config", async () => {
    const config = { provider: "scripted", model: "model-a", temperature: 0.3, reasoningEffort: "low" as const, stop: ["END"], extensions: { x: 1 } };
    const { agent, adapter, log } = harness((request) => (request.messages[0]?.source === "compaction" ? { text: "short" } : { text: "fine" }), { config });
    await agent.run("one");
    await agent.run("two");
    await expect(agent.compact({ keepRecent: 1, summaryMaxTokens: 99 })).resolves.toMatchObject({ outcome: "completed" });
    const summary = log.slice().find((event) => compactionSummaryEvent.is(event))!;
    const { provider, model, maxTokens } = summary.data as { provider: string; model: string; maxTokens: number };
    const call = adapter.received.find((request) => !isAgentLoopRequest(request))!;
    expect(call.config).toEqual({ provider, model, maxTokens });
    expect(maxTokens).toBe(99);
  });
});

describe("trimming under token pressure", () => {
  it("trims in one batch instead of compacting while there is something to trim, then compacts", async () => {
    const { agent, adapter, log } = harness(
      (request, index) => {
        if (request.messages[0]?.source === "compaction") return { text: "summary" };
        return index < 2 ? { toolCalls: [{ name: "echo", arguments: JSON.stringify({ text: String(index).repeat(400) }) }] } : { text: "ok" };
      },
      { compaction: { contextWindow: 100, threshold: 0.5, keepRecent: 2, trim: { maxChars: 50, keepRecent: 2 } } },
    );
    await agent.run("go");
    const trimsOf = () => log.slice().filter((event) => event.type === "tool/result" && (event.data as { source: string }).source === "trim");
    expect(trimsOf().length).toBeGreaterThan(0);
    expect(types(log)).not.toContain("compaction/start");
    for (const prompt of ["more", "and more", "still more"]) await agent.run(prompt);
    const kinds = types(log);
    expect(kinds).toContain("compaction/start");
    // Each pressure check either trimmed (one batch) or compacted, never both.
    for (const [index, kind] of kinds.entries()) {
      if (kind !== "compaction/start") continue;
      const since = kinds.lastIndexOf("request/dispatch", index);
      expect(log.slice(since, index).filter((event) => event.type === "tool/result" && (event.data as { replaces?: unknown }).replaces !== undefined)).toEqual([]);
    }
    const loopRequests = adapter.received.filter((request) => isAgentLoopRequest(request));
    expect((await reconstructRequests(log)).map((r) => body(r.request))).toEqual(loopRequests.map(body));
  });
});

describe("compaction on context overflow", () => {
  it("compacts once and continues the turn with a new step", async () => {
    let overflowed = false;
    const { agent, log } = harness(
      (request) => {
        if (request.messages[0]?.source === "compaction") return { text: "summary" };
        if (!overflowed && request.messages.length > 5) {
          overflowed = true;
          return { error: new LlmError("LLM_CONTEXT_OVERFLOW", "too long", { status: 400 }) };
        }
        return { text: "fine" };
      },
      { compaction: { contextWindow: 1_000_000, keepRecent: 2 } },
    );
    await agent.run("one");
    await agent.run("two");
    const result = await agent.run("three");
    expect(result).toMatchObject({ reason: "completed", steps: 2 });
    const kinds = types(log);
    const failedStep = kinds.lastIndexOf("step/end", kinds.indexOf("compaction/start"));
    expect(log.get(failedStep)?.data).toMatchObject({ reason: "error", error: { code: "LLM_CONTEXT_OVERFLOW" } });
    expect(log.slice().find((event) => compactionStartEvent.is(event))?.data).toMatchObject({ reason: "overflow" });
  });
});

describe("manual compaction, trimming and recovery", () => {
  it("trims an old tool result in place, keeping its call, as a logged single-entry replace", async () => {
    const { agent, adapter, log } = harness((_r, index) =>
      index === 0 ? { toolCalls: [{ name: "echo", arguments: JSON.stringify({ text: "x".repeat(3000) }) }] } : { text: "ok" },
    );
    await agent.run("big output please");
    await agent.run("next");
    expect(await agent.trimToolResults({ maxChars: 100, keepRecent: 2 })).toBe(1);
    await agent.run("after the trim");
    const trim = log.slice().find((event) => event.type === "tool/result" && (event.data as { source: string }).source === "trim");
    expect(trim?.data).toMatchObject({ callId: "call-0-0", toolName: "echo", isError: false, replaces: { generation: 1 } });
    expect((trim?.data as { replaces: { start: number; end: number } }).replaces.start).toBe((trim?.data as { replaces: { end: number } }).replaces.end);
    const last = adapter.received.at(-1)!;
    expect(JSON.stringify(last.messages)).toContain("[trimmed: 3006 characters]");
    expect((await reconstructRequests(log)).map((r) => body(r.request))).toEqual(adapter.received.map(body));
  });

  it("cuts the kept start of a trimmed result between characters, never through one", async () => {
    // "echo: " is 6 units, so the 200-unit cut falls inside the emoji at units 199-200.
    const text = `${"y".repeat(193)}😀${"z".repeat(500)}`;
    const { agent, log } = harness((_r, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: JSON.stringify({ text }) }] } : { text: "ok" }));
    await agent.run("big output please");
    await agent.run("next");
    expect(await agent.trimToolResults({ maxChars: 100, keepRecent: 2 })).toBe(1);
    const trim = log.slice().find((event) => event.type === "tool/result" && (event.data as { source: string }).source === "trim");
    const placeholder = (trim?.data as { content: { text: string }[] }).content[0]!.text;
    expect(placeholder).toBe(`[trimmed: ${6 + text.length} characters]\necho: ${"y".repeat(193)}`);
  });

  it("trims every result older than the keepRecent newest nodes, and none of those", async () => {
    // Each step: an answer with one call and its result; the turn ends with a plain answer.
    const { agent, log } = harness((_r, index) => (index < 3 ? { toolCalls: [{ name: "echo", arguments: JSON.stringify({ text: `${index}`.repeat(300) }) }] } : { text: "ok" }));
    await agent.run("three big outputs");
    const results = log.slice().filter((event) => event.type === "tool/result").map((event) => event.seq);
    const nodes = agent.surface.nodeSeqs();
    // The newest result sits 2 nodes from the end (before the final answer): keepRecent 3 protects it and
    // the answer before it, so exactly the two older results are trimmed.
    const protectedFrom = nodes.length - 3;
    expect(nodes.indexOf(results[2]!)).toBe(protectedFrom + 1);
    expect(await agent.trimToolResults({ maxChars: 100, keepRecent: 3 })).toBe(2);
    const trimmed = log.slice().filter((event) => (event.data as { source?: string }).source === "trim").map((event) => (event.data as { replaces: { start: number } }).replaces.start);
    expect(trimmed).toEqual([results[0], results[1]]);
    // keepRecent 2 still covers the newest result (the boundary node itself); keepRecent 1 does not.
    expect(await agent.trimToolResults({ maxChars: 100, keepRecent: 2 })).toBe(0);
    expect(await agent.trimToolResults({ maxChars: 100, keepRecent: 1 })).toBe(1);
  });

  it("is idempotent: a trimmed result is never trimmed again, however small maxChars is", async () => {
    const { agent, log } = harness((_r, index) =>
      index === 0 ? { toolCalls: [{ name: "echo", arguments: JSON.stringify({ text: "x".repeat(300) }) }] } : { text: "ok" },
    );
    await agent.run("big output please");
    await agent.run("next");
    expect(await agent.trimToolResults({ maxChars: 1, keepRecent: 1 })).toBe(1);
    const length = log.length;
    expect(await agent.trimToolResults({ maxChars: 1, keepRecent: 1 })).toBe(0);
    expect(log.length).toBe(length);
  });

  it("trims every old result of one pass in one batch, with consecutive generations", async () => {
    const big = (text: string) => ({ name: "echo", arguments: JSON.stringify({ text: text.repeat(500) }) });
    const { agent, log } = harness((_r, index) => (index === 0 ? { toolCalls: [big("a"), big("b")] } : { text: "ok" }));
    await agent.run("two big outputs");
    await agent.run("next");
    const appended: number[] = [];
    log.subscribe((events) => appended.push(events.length));
    expect(await agent.trimToolResults({ maxChars: 10, keepRecent: 1 })).toBe(2);
    expect(appended).toEqual([2]);
    expect(log.slice(-2).map((event) => (event.data as { replaces: { generation: number } }).replaces.generation)).toEqual([1, 2]);
  });

  it("closes a compaction left open by a crash before new work starts", async () => {
    const first = harness(() => ({ text: "ok" }));
    await first.agent.run("one");
    await first.agent.run("two");
    const events = first.log.slice();
    const nodes = first.agent.surface.nodeSeqs();
    const log = EventLog.from(createAgentRegistry(), events);
    await log.append(compactionStartEvent.input({ reason: "manual", range: { start: nodes[1]!, end: nodes[2]! } }));
    const resumed = harness(() => ({ text: "back" }), { log });
    await resumed.agent.run("three");
    expect(log.get(events.length + 1)?.data).toEqual({
      outcome: "failed",
      error: { code: "INTERRUPTED", message: "the session ended during the compaction" },
    });
  });
});
