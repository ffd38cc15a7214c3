import { freezeRequest } from "dsh-llm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { layoutRequest, type WireLayout } from "./blocks.js";
import { rollingPolicy, systemAndLastUserPolicy } from "./breakpoints.js";
import { toolSessionRequest, type Step } from "./test-support/session.js";

async function layoutOf(steps: readonly Step[]): Promise<WireLayout> {
  const request = freezeRequest(toolSessionRequest(steps));
  return layoutRequest(request.messages, request.tools, undefined);
}

/** The blocks a policy marks, described as `section:type` for readable assertions. */
function describe_(layout: WireLayout, marks: readonly number[]): string[] {
  return marks.map((i) => `${i}:${layout.blocks[i]!.section}:${String(layout.blocks[i]!.value.type ?? "tool")}`);
}

describe("rolling-v1", () => {
  it("marks the end of tools + system, the previous request's end and the current end; never a thinking block", async () => {
    const layout = await layoutOf([{ thinking: "t0", calls: 1 }, { thinking: "t1", calls: 2 }]);
    // 0 tool, 1 system, 2 user text, 3 thinking, 4 tool_use, 5 tool_result, 6 thinking, 7-8 tool_use, 9-10 tool_result
    expect(describe_(layout, rollingPolicy(layout))).toEqual(["1:system:text", "5:messages:tool_result", "10:messages:tool_result"]);
  });

  it("marks only the static prefix and the end on the first request", async () => {
    const layout = await layoutOf([]);
    expect(describe_(layout, rollingPolicy(layout))).toEqual(["1:system:text", "2:messages:text"]);
  });

  it("adds an anchor in the middle of a step that added more than 15 blocks, and none for 15", async () => {
    // Previous end 4, then thinking + 7 calls + 7 results: 15 blocks, ending at 19; one more call: 17, ending at 21.
    expect(rollingPolicy(await layoutOf([{ calls: 1 }, { thinking: "t", calls: 7 }]))).toEqual([1, 4, 19]);
    expect(rollingPolicy(await layoutOf([{ calls: 1 }, { thinking: "t", calls: 8 }]))).toEqual([1, 4, 12, 21]);
  });

  it("counts a long first stretch from before the first block when there is no system prompt or tool", async () => {
    const layout = await layoutRequest(
      freezeRequest({ config: { provider: "anthropic", model: "m" }, messages: [{ role: "user", content: Array.from({ length: 20 }, (_, i) => ({ type: "text" as const, text: `part ${i}` })), source: "user" }] }).messages,
      undefined,
      undefined,
    );
    expect(rollingPolicy(layout)).toEqual([9, 19]);
    expect(systemAndLastUserPolicy(layout)).toEqual([19]);
  });

  it("moves a mark that would land on a thinking block back to the block before it", async () => {
    const request = toolSessionRequest([{ calls: 1 }]);
    const messages = [...request.messages, { role: "assistant" as const, content: [{ type: "reasoning" as const, text: "prefill", signature: "s" }], source: "model" }];
    const layout = await layoutRequest(freezeRequest({ ...request, messages }).messages, request.tools, undefined);
    // 0 tool, 1 system, 2 user, 3 tool_use, 4 tool_result, 5 thinking: the end moves to 4, which is also the previous end.
    expect(rollingPolicy(layout)).toEqual([1, 4]);
  });

  it("keeps the latest compaction summary marked instead of an anchor", async () => {
    const request = toolSessionRequest([{ calls: 1 }, { calls: 8 }]);
    const messages = [...request.messages];
    messages[1] = { role: "user", content: [{ type: "text", text: "Summary of the conversation so far:\n…" }], source: "compaction" };
    const layout = await layoutRequest(freezeRequest({ ...request, messages }).messages, request.tools, undefined);
    expect(rollingPolicy(layout)).toEqual([1, 2, 4, 20]);
  });

  it("marks in every request the block the request before it ended on, so each request reads what the last one wrote", async () => {
    const step = fc.record({ thinking: fc.option(fc.string({ minLength: 1, maxLength: 5 }), { nil: undefined }), calls: fc.integer({ min: 1, max: 12 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        for (let k = 1; k <= steps.length; k++) {
          const before = await layoutOf(steps.slice(0, k - 1));
          const after = await layoutOf(steps.slice(0, k));
          const end = rollingPolicy(before).at(-1)!;
          expect(rollingPolicy(after)).toContain(end);
          expect(after.blocks[end]!.value).toEqual(before.blocks[end]!.value);
          const marks = rollingPolicy(after);
          expect(marks.length).toBeLessThanOrEqual(4);
          for (const mark of marks) expect(after.blocks[mark]!.markable).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("system-and-last-user-v1", () => {
  it("marks the system prompt and the last human turn, not the tool results after it", async () => {
    const layout = await layoutOf([{ calls: 1 }, { calls: 2 }]);
    expect(describe_(layout, systemAndLastUserPolicy(layout))).toEqual(["1:system:text", "2:messages:text"]);
  });

  it("marks only the system prompt when no human turn is left (a summary replaced it by tool results only)", async () => {
    const request = toolSessionRequest([{ calls: 1 }]);
    const messages = request.messages.filter((message) => message.role !== "user");
    const layout = await layoutRequest(freezeRequest({ ...request, messages }).messages, request.tools, undefined);
    expect(systemAndLastUserPolicy(layout)).toEqual([1]);
  });
});
