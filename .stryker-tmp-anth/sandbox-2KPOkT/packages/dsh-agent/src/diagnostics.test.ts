import { describe, expect, it } from "vitest";
import { reconstructRequests } from "./reconstruct.js";
import { baseConfig, body, harness } from "./test-support/harness.js";

const answers = (request: unknown, index: number) => ({ text: `answer ${index}`, responseId: `resp-${index}`, ...(index > 0 ? { cacheDiagnosis: { verdict: "hit" as const } } : {}) });

describe("cache diagnostics in the loop", () => {
  it("names the previous answer's id in each request, logs each answer's id and diagnosis, and rebuilds the same requests from the log", async () => {
    const { adapter, agent, log } = harness(answers, { config: { ...baseConfig, cacheDiagnostics: true } });
    await agent.run("one");
    await agent.run("two");
    agent.reconfigure({ ...baseConfig, model: "model-b", cacheDiagnostics: true });
    await agent.run("three");
    expect(adapter.received.map((request) => request.previousResponseId)).toEqual([undefined, "resp-0", "resp-1"]);
    const ends = log.slice().filter((event) => event.type === "step/end").map((event) => event.data as { responseId?: string; cacheDiagnosis?: unknown });
    expect(ends.map((end) => [end.responseId, end.cacheDiagnosis])).toEqual([
      ["resp-0", undefined],
      ["resp-1", { verdict: "hit" }],
      ["resp-2", { verdict: "hit" }],
    ]);
    const rebuilt = await reconstructRequests(log);
    expect(rebuilt.map(({ request }) => body(request))).toEqual(adapter.received.map(body));
  });

  it("sends no id without the opt-in, even when the provider names its answers", async () => {
    const { adapter, agent, log } = harness(answers);
    await agent.run("one");
    await agent.run("two");
    expect(adapter.received.map((request) => "previousResponseId" in request)).toEqual([false, false]);
    expect((await reconstructRequests(log)).map(({ request }) => "previousResponseId" in request)).toEqual([false, false]);
  });

  it("names the latest answer the provider named, passing over one it did not name", async () => {
    const { adapter, agent } = harness((_request, index) => (index === 1 ? { text: "unnamed" } : answers(undefined, index)), { config: { ...baseConfig, cacheDiagnostics: true } });
    await agent.run("one");
    await agent.run("two");
    await agent.run("three");
    // The second answer had no id: the third request still names the latest answer that had one.
    expect(adapter.received.map((request) => request.previousResponseId)).toEqual([undefined, "resp-0", "resp-0"]);
  });
});
