import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "./agent.js";
import { reconstructRequests } from "./reconstruct.js";
import { body, harness } from "./test-support/harness.js";
import { defineTool } from "./tools.js";

/** Tools that wait for each other: `first` finishes only after `second` has started and finished. */
function racingTools(runsAlone = false) {
  let releaseFirst: () => void = () => undefined;
  const firstWaits = new Promise<void>((resolve) => (releaseFirst = resolve));
  let overlapped = false;
  let running = 0;
  const first = defineTool({
    name: "first",
    description: "Finishes last.",
    parameters: z.object({}),
    runsAlone,
    execute: async () => {
      running++;
      await Promise.race([firstWaits, new Promise((resolve) => setTimeout(resolve, 200))]);
      running--;
      return "first result";
    },
  });
  const second = defineTool({
    name: "second",
    description: "Finishes first.",
    parameters: z.object({}),
    execute: () => {
      if (running > 0) overlapped = true;
      releaseFirst();
      return "second result";
    },
  });
  return { tools: [first, second], overlapped: () => overlapped };
}

const twoCalls = (_request: unknown, index: number) => (index === 0 ? { toolCalls: [{ name: "first", arguments: "{}" }, { name: "second", arguments: "{}" }] } : { text: "done" });

describe("parallel tool calls", () => {
  it("runs an answer's calls at once and logs their results in the model's order, so the rebuild does not depend on timing", async () => {
    const race = racingTools();
    const { adapter, agent, log } = harness(twoCalls, { tools: race.tools });
    await agent.run("go");
    expect(race.overlapped()).toBe(true);
    const results = log.slice().filter((event) => event.type === "tool/result").map((event) => (event.data as { toolName: string }).toolName);
    expect(results).toEqual(["first", "second"]);
    expect((await reconstructRequests(log)).map(({ request }) => body(request))).toEqual(adapter.received.map(body));
  });

  it("runs a tool marked runsAlone by itself, and everything one at a time with toolConcurrency 1", async () => {
    const alone = racingTools(true);
    // Registered after the other tool: the rule is found by the call's own tool, not the first one.
    await harness(twoCalls, { tools: [alone.tools[1]!, alone.tools[0]!] }).agent.run("go");
    expect(alone.overlapped()).toBe(false);
    const serial = racingTools();
    await harness(twoCalls, { tools: serial.tools, toolConcurrency: 1 }).agent.run("go");
    expect(serial.overlapped()).toBe(false);
  });

  it("refuses a concurrency that is not a whole number of at least 1", () => {
    const { log, runtime } = harness(twoCalls);
    for (const toolConcurrency of [0, 1.5, Number.NaN]) {
      expect(() => new Agent({ log, runtime, config: { provider: "scripted", model: "m" }, toolConcurrency })).toThrow(expect.objectContaining({ code: "AGENT_INVALID_OPTIONS" }));
    }
  });
});
