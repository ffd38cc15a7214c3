import { LlmError } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { stepEndEvent } from "./events.js";
import { measuredTokens } from "./pressure.js";
import { harness, types } from "./test-support/harness.js";

/** Input plus output tokens of the last step/end that reported usage. */
function lastUsage(log: EventLog): number {
  const ends = log.slice().filter((event) => stepEndEvent.is(event));
  const usage = (ends.at(-1)!.data as { usage: { inputTokens: number; outputTokens: number } }).usage;
  return usage.inputTokens + usage.outputTokens;
}

describe("measuredTokens", () => {
  it("is undefined before any step, then the input plus output tokens of the latest step", async () => {
    const { agent, log } = harness(() => ({ text: "ok" }));
    expect(measuredTokens(log)).toBeUndefined();
    await agent.run("hello");
    await agent.run("hello again, with more words");
    expect(measuredTokens(log)).toBe(lastUsage(log));
    expect(measuredTokens(log)).toBeGreaterThan(2);
  });

  it("is undefined after a completed compaction or a trim, until a step measures again; a failed compaction changes nothing", async () => {
    let failSummary = true;
    const { agent, log } = harness((request, index) => {
      if (request.messages[0]?.source === "compaction") return failSummary ? { error: new LlmError("LLM_BAD_REQUEST", "no") } : { text: "summary" };
      return index === 0 ? { toolCalls: [{ name: "echo", arguments: JSON.stringify({ text: "x".repeat(300) }) }] } : { text: "ok" };
    });
    await agent.run("one");
    await agent.run("two");
    const measured = measuredTokens(log);
    expect(await agent.compact({ keepRecent: 1 })).toMatchObject({ outcome: "failed" });
    expect(measuredTokens(log)).toBe(measured);
    expect(await agent.trimToolResults({ maxChars: 10, keepRecent: 0 })).toBe(1);
    expect(measuredTokens(log)).toBeUndefined();
    await agent.run("three");
    expect(measuredTokens(log)).toBe(lastUsage(log));
    failSummary = false;
    expect(await agent.compact({ keepRecent: 1 })).toMatchObject({ outcome: "completed" });
    expect(measuredTokens(log)).toBeUndefined();
  });
});

describe("relieving pressure before a step", () => {
  async function measuredAfterOneTurn() {
    const first = harness(() => ({ text: "ok" }));
    await first.agent.run("a first question, long enough to measure");
    return { log: first.log, measured: measuredTokens(first.log)! };
  }

  it("compacts once the measure reaches the threshold exactly, not below it", async () => {
    for (const compacts of [true, false]) {
      const { log, measured } = await measuredAfterOneTurn();
      const next = harness((request) => (request.messages[0]?.source === "compaction" ? { text: "summary" } : { text: "ok" }), {
        log,
        compaction: { contextWindow: compacts ? measured : measured + 1, threshold: 1, keepRecent: 0 },
      });
      await next.agent.run("and now?");
      expect(types(log).includes("compaction/start")).toBe(compacts);
    }
  });

  it("compacts when trimming is on but there is nothing to trim", async () => {
    const { log, measured } = await measuredAfterOneTurn();
    const next = harness((request) => (request.messages[0]?.source === "compaction" ? { text: "summary" } : { text: "ok" }), {
      log,
      compaction: { contextWindow: measured, threshold: 1, keepRecent: 0, trim: { maxChars: 10 } },
    });
    await next.agent.run("and now?");
    expect(types(log)).toContain("compaction/start");
  });
});
