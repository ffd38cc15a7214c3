import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolEvent } from "./listeners.js";
import { harness } from "./test-support/harness.js";
import { defineTool } from "./tools.js";

const counter = defineTool({
  name: "count",
  description: "Counts, reporting progress.",
  parameters: z.object({ n: z.number() }),
  execute: ({ n }, context) => {
    for (let i = 1; i <= n; i++) context.reportProgress?.({ progress: i, total: n });
    return `counted to ${n}`;
  },
});

const script = (_request: unknown, index: number) => (index === 0 ? { toolCalls: [{ name: "count", arguments: '{"n":2}' }, { name: "missing", arguments: "{}" }] } : { text: "done" });

describe("tool events for a UI", () => {
  it("tells each call's start, its progress and its finish, and logs none of it", async () => {
    const { agent, log } = harness(script, { tools: [counter] });
    const events: ToolEvent[] = [];
    await agent.run("go", { onToolEvent: (event) => events.push(event) });
    expect(events.filter((event) => event.callId === "call-0-0")).toEqual([
      { type: "start", callId: "call-0-0", name: "count", turn: 0, step: 0 },
      { type: "progress", callId: "call-0-0", name: "count", progress: 1, total: 2 },
      { type: "progress", callId: "call-0-0", name: "count", progress: 2, total: 2 },
      { type: "finish", callId: "call-0-0", name: "count", isError: false },
    ]);
    expect(events.filter((event) => event.callId === "call-0-1").map((event) => event.type === "finish" && event.isError)).toEqual([false, true]);
    expect(log.slice().map((event) => event.type).filter((type) => type.startsWith("tool/"))).toEqual(["tool/result", "tool/result"]);
  });

  it("runs the turn on when a listener throws", async () => {
    const { agent } = harness(script, { tools: [counter] });
    const result = await agent.run("go", { onToolEvent: () => { throw new Error("UI broke"); } });
    expect(result).toMatchObject({ reason: "completed", text: "done" });
  });
});
