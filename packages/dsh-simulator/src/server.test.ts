import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "./server.js";

let simulator: Simulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

const system = "You are a careful assistant. ".repeat(40);
function body(messages: object[]): string {
  return JSON.stringify({ model: "sim-1", messages, stream: true, stream_options: { include_usage: true } });
}

async function post(url: string, payload: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/chat/completions`, { method: "POST", body: payload, headers: { "content-type": "application/json", ...headers } });
  return { status: response.status, text: await response.text() };
}

function frames(text: string): unknown[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: ") && frame !== "data: [DONE]")
    .map((frame) => JSON.parse(frame.slice(6)));
}

describe("the simulator", () => {
  it("streams scripted answers, records bodies byte for byte and reports prefix-cache hits like DeepSeek", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "first answer" }, { text: "second answer" }] } });
    const first = body([{ role: "system", content: system }, { role: "user", content: "héllo" }]);
    const second = body([
      { role: "system", content: system },
      { role: "user", content: "héllo" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "again" },
    ]);
    const a = await post(simulator.url, first);
    const b = await post(simulator.url, second);
    expect(a.status).toBe(200);
    expect(a.text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(simulator.exchanges.map((exchange) => exchange.body)).toEqual([first, second]);
    const lastFrame = (text: string) => frames(text).at(-1) as { choices: { finish_reason: string }[]; usage: Record<string, number> };
    expect(lastFrame(a.text).choices[0]?.finish_reason).toBe("stop");
    expect(lastFrame(a.text).usage.prompt_cache_hit_tokens).toBe(0);
    const usage = lastFrame(b.text).usage;
    expect(usage.prompt_cache_hit_tokens).toBeGreaterThan(0);
    expect(usage.prompt_cache_hit_tokens! % 64).toBe(0);
    expect(usage.prompt_cache_hit_tokens! + usage.prompt_cache_miss_tokens!).toBe(usage.prompt_tokens);
    expect(frames(b.text).map((frame) => (frame as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "").join("")).toBe(
      "second answer",
    );
  });

  it("keeps each exchange's figures but not its body when told to keep no bodies, and answers alike", async () => {
    const payloads = [body([{ role: "system", content: system }, { role: "user", content: "one" }]), body([{ role: "system", content: system }, { role: "user", content: "two" }])];
    const answers = async (keepBodies: boolean) => {
      simulator = await startSimulator({ scenario: { responses: [{ text: "a" }, { text: "b" }] }, keepBodies });
      const texts = [(await post(simulator.url, payloads[0]!)).text, (await post(simulator.url, payloads[1]!)).text];
      const exchanges = simulator.exchanges;
      await simulator.close();
      simulator = undefined;
      return { texts, exchanges };
    };
    const kept = await answers(true);
    const dropped = await answers(false);
    expect(dropped.texts).toEqual(kept.texts);
    expect(kept.exchanges.map((exchange) => exchange.body)).toEqual(payloads);
    expect(dropped.exchanges).toEqual(kept.exchanges.map((exchange) => ({ ...exchange, body: "" })));
    expect(dropped.exchanges[1]!.cacheHitTokens).toBeGreaterThan(0);
  });

  it("streams tool calls by index with the arguments split across deltas", async () => {
    simulator = await startSimulator({
      scenario: { responses: [{ toolCalls: [{ name: "read_file", arguments: { path: "a-rather-long-file-name-for-splitting.txt" } }] }] },
    });
    const { text } = await post(simulator.url, body([{ role: "user", content: "read" }]));
    const deltas = frames(text).flatMap((frame) => (frame as { choices: { delta: { tool_calls?: { function: { arguments: string } }[] } }[] }).choices[0]?.delta.tool_calls ?? []);
    expect(deltas.length).toBeGreaterThan(1);
    expect(JSON.parse(deltas.map((delta) => delta.function.arguments).join(""))).toEqual({ path: "a-rather-long-file-name-for-splitting.txt" });
  });

  it("gives tool calls ids that never repeat across the steps of a session, also from a restarted simulator", async () => {
    const ids = async (payload: string) => {
      const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "a", arguments: {} }, { name: "b", arguments: {} }] }] } });
      try {
        const { text } = await post(sim.url, payload);
        return frames(text).flatMap((frame) => (frame as { choices: { delta: { tool_calls?: { id?: string }[] } }[] }).choices[0]?.delta.tool_calls ?? []).flatMap((call) => (call.id === undefined ? [] : [call.id]));
      } finally {
        await sim.close();
      }
    };
    // Each process's first exchange: before, both answered call_1_0 and call_1_1.
    const first = await ids(body([{ role: "user", content: "step one" }]));
    const second = await ids(body([{ role: "user", content: "step one" }, { role: "assistant", content: "ok" }, { role: "user", content: "step two" }]));
    expect(first).toHaveLength(2);
    expect(new Set([...first, ...second]).size).toBe(4);
    // The same request (a retry) gets the same ids.
    expect(await ids(body([{ role: "user", content: "step one" }]))).toEqual(first);
  });

  it("injects HTTP faults, consuming one scripted reply each", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ fault: "http-429" }, { fault: "http-500" }, { text: "ok" }] } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(simulator.url, body([{ role: "user", content: "x" }]))).status);
    expect(statuses).toEqual([429, 500, 200]);
  });

  it("requires the configured key and answers 404 off the API path", async () => {
    simulator = await startSimulator({ scenario: { policy: "explore" }, apiKey: "sim-key" });
    expect((await post(simulator.url, body([{ role: "user", content: "x" }]))).status).toBe(401);
    expect((await post(simulator.url, body([{ role: "user", content: "x" }]), { authorization: "Bearer sim-key" })).status).toBe(200);
    expect((await fetch(`${simulator.url}/models`)).status).toBe(404);
  });
});
