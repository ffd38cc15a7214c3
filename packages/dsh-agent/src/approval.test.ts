import { describe, expect, it } from "vitest";
import { reconstructRequests } from "./reconstruct.js";
import { body, echoTool, harness } from "./test-support/harness.js";
import type { ApprovalRequest } from "./approval.js";

const twoEchoes = (_request: unknown, index: number) =>
  index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"safe"}' }, { name: "echo", arguments: '{"text":"risky"}' }] } : { text: "done" };

describe("per-call approval", () => {
  it("asks about each call in the model's order, logs each decision and who made it, and tells the model a denied call did not run", async () => {
    const asked: ApprovalRequest[] = [];
    const { adapter, agent, log } = harness(twoEchoes, {
      tools: [echoTool],
      approve: (request) => {
        asked.push(request);
        return request.arguments.includes("risky") ? { allow: false, by: "alice", reason: "too risky" } : { allow: true, by: "alice" };
      },
    });
    await agent.run("go");
    expect(asked.map((request) => [request.toolName, request.arguments, request.turn, request.step])).toEqual([
      ["echo", '{"text":"safe"}', 0, 0],
      ["echo", '{"text":"risky"}', 0, 0],
    ]);
    const events = log.slice();
    const approvals = events.filter((event) => event.type === "tool/approval").map((event) => event.data);
    expect(approvals).toEqual([
      { turn: 0, step: 0, callId: "call-0-0", toolName: "echo", allowed: true, by: "alice" },
      { turn: 0, step: 0, callId: "call-0-1", toolName: "echo", allowed: false, by: "alice", reason: "too risky" },
    ]);
    const results = events.filter((event) => event.type === "tool/result").map((event) => event.data as { content: { text: string }[]; isError: boolean });
    expect(results.map((result) => [result.content[0]!.text, result.isError])).toEqual([
      ["echo: safe", false],
      ["Error [TOOL_DENIED]: not run: denied by alice: too risky", true],
    ]);
    // Decisions are logged before any result, and are not model-visible: the rebuild matches what was sent.
    expect(events.findIndex((event) => event.type === "tool/approval")).toBeLessThan(events.findIndex((event) => event.type === "tool/result"));
    expect((await reconstructRequests(log)).map(({ request }) => body(request))).toEqual(adapter.received.map(body));
  });

  it("denies a call when the hook throws or answers without a decision, saying so", async () => {
    const thrower = harness(twoEchoes, { tools: [echoTool], approve: () => { throw new Error("policy service down"); } });
    await thrower.agent.run("go");
    expect(thrower.log.slice().filter((event) => event.type === "tool/approval").map((event) => event.data)).toContainEqual(expect.objectContaining({ allowed: false, by: "approval hook", reason: "the hook failed: policy service down" }));
    const vague = harness(twoEchoes, { tools: [echoTool], approve: () => ({ allow: true }) as never });
    await vague.agent.run("go");
    expect(vague.log.slice().filter((event) => event.type === "tool/result").every((event) => (event.data as { isError: boolean }).isError)).toBe(true);
  });

  it("says who denied a call when no reason was given", async () => {
    const { agent, log } = harness(twoEchoes, { tools: [echoTool], approve: () => ({ allow: false, by: "bob" }) });
    await agent.run("go");
    const texts = log.slice().filter((event) => event.type === "tool/result").map((event) => (event.data as { content: { text: string }[] }).content[0]!.text);
    expect(texts).toEqual(["Error [TOOL_DENIED]: not run: denied by bob", "Error [TOOL_DENIED]: not run: denied by bob"]);
    expect(log.slice().find((event) => event.type === "tool/approval")!.data).not.toHaveProperty("reason");
  });

  it("asks nothing about calls cut off at the token limit, which never run", async () => {
    let asked = 0;
    const { agent } = harness((_request, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: "{}" }], finishReason: "length" as const } : { text: "done" }), {
      tools: [echoTool],
      approve: () => {
        asked++;
        return { allow: true, by: "x" };
      },
    });
    await agent.run("go");
    expect(asked).toBe(0);
  });
});
