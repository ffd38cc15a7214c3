import type { ToolCallBlock } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { startCalls } from "./tool-runs.js";

const call = (name: string): ToolCallBlock => ({ type: "tool-call", callId: name, name, arguments: "{}" });

/** Runs calls that finish when the test says so, recording what ran beside what. */
function harness() {
  const running = new Set<string>();
  const seen: string[][] = [];
  const finish = new Map<string, () => void>();
  const run = (block: ToolCallBlock) =>
    new Promise<string>((resolve) => {
      running.add(block.name);
      seen.push([...running].sort());
      finish.set(block.name, () => {
        running.delete(block.name);
        resolve(`${block.name} done`);
      });
    });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { running, seen, finish, run, settle };
}

describe("startCalls", () => {
  it("runs calls at once up to the limit, the next starting as one finishes, and answers in the model's order", async () => {
    const { running, finish, run, settle } = harness();
    const outcomes = startCalls(["a", "b", "c"].map((name) => ({ call: call(name), alone: false })), 2, run);
    await settle();
    expect([...running].sort()).toEqual(["a", "b"]);
    finish.get("b")!();
    await settle();
    expect([...running].sort()).toEqual(["a", "c"]);
    finish.get("c")!();
    finish.get("a")!();
    expect(await Promise.all(outcomes)).toEqual(["a done", "b done", "c done"]);
  });

  it("runs a call that must run alone after every call before it, and before every call after it", async () => {
    const { running, seen, finish, run, settle } = harness();
    const outcomes = startCalls([{ call: call("a"), alone: false }, { call: call("b"), alone: false }, { call: call("x"), alone: true }, { call: call("c"), alone: false }], 8, run);
    await settle();
    expect([...running].sort()).toEqual(["a", "b"]);
    finish.get("a")!();
    await settle();
    expect(running.has("x")).toBe(false);
    finish.get("b")!();
    await settle();
    expect([...running]).toEqual(["x"]);
    finish.get("x")!();
    await settle();
    expect([...running]).toEqual(["c"]);
    finish.get("c")!();
    await Promise.all(outcomes);
    expect(seen.some((together) => together.includes("x") && together.length > 1)).toBe(false);
  });

  it("runs them one after another with a limit of 1", async () => {
    const { seen, finish, run, settle } = harness();
    const outcomes = startCalls(["a", "b"].map((name) => ({ call: call(name), alone: false })), 1, run);
    await settle();
    finish.get("a")!();
    await settle();
    finish.get("b")!();
    await Promise.all(outcomes);
    expect(seen).toEqual([["a"], ["b"]]);
  });
});
