import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { startSimulator } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { assertFixture, checkFixture } from "./check.js";
import { recordFixture } from "./record.js";
import { formatFixtureReport } from "./report.js";
import { fixtureDir, sessionHeader } from "./test-support/session.js";

const adapter = new AnthropicAdapter({ baseUrl: "http://127.0.0.1:9", apiKey: "unused" });
/** What the current code sends with: the Messages API adapter's defaults and wire profile. */
const current = { modelDefaults: (_provider: string, model: string) => adapter.modelDefaults(model), wireProfile: (_provider: string, model: string) => adapter.wireProfile(model) };

/** Four turns with a tool on the simulated Messages API; with `stampAt`, a hook stamps the time into the prompt from that turn on. */
async function record(stampAt?: number): Promise<string> {
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "look", arguments: {} }] }, { text: "Seen." }, { text: "Two." }, { text: "Three." }, { text: "Four." }] } });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    const look = defineTool({ name: "look", description: "Looks around", parameters: z.object({}), execute: () => "a tidy room ".repeat(40) });
    let turn = 0;
    const prompt = "You are careful. Check every answer twice before you give it. ".repeat(100);
    const agent = new Agent({
      log,
      runtime: new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-test" })] }),
      config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 },
      systemPrompt: () => (stampAt !== undefined && turn >= stampAt ? `It is 12:0${turn}. ${prompt}` : prompt),
      tools: [look],
    });
    for (; turn < 4; turn++) await agent.run(`Question ${turn}?`);
    const dir = await fixtureDir(stampAt === undefined ? "steady" : "stamped");
    await recordFixture({ header: sessionHeader(`cache-${stampAt ?? "none"}`), events: log.slice() }, dir, { cwd: process.cwd() });
    return dir;
  } finally {
    await sim.close();
  }
}

describe("cache limits on a fixture", () => {
  it("fails a floor a fixture with a mid-session prompt change misses, naming the change, its seq and the bytes; passes one it meets", async () => {
    const dir = await record(2);
    const missed = await checkFixture(dir, current, { cacheFloor: 0.95 });
    expect(missed.ok).toBe(false);
    expect(missed.requests.differences).toEqual([]);
    const cache = missed.cache!;
    expect(cache.share).toBeGreaterThan(0.3);
    expect(cache.share).toBeLessThan(0.95);
    // The stamped prompt breaks the prefix at turn 2 and again at turn 3 (the time moved on).
    expect(cache.breaks.map((entry) => [entry.turn, entry.step])).toEqual([
      [2, 0],
      [3, 0],
    ]);
    expect(cache.breaks[0]!.causes).toEqual([expect.stringMatching(/^the system prompt changed: the message logged at seq \d+ \(seq \d+\)$/)]);
    expect(cache.breaks[0]!.divergence).toMatchObject({ now: expect.stringMatching(/^It is 12:02\. You are careful/), was: expect.stringMatching(/^You are careful/) });
    const text = formatFixtureReport(missed);
    const share = `${(100 * cache.share!).toFixed(1)}%`;
    expect(text.split("\n")[0]).toBe(`fixture stamped: unchanged (5 requests), but cache-read share ${share} (floor 95.0%: missed)`);
    expect(text).toMatch(/^cache break at request 4 \(turn 2 step 0\): the system prompt changed: the message logged at seq \d+ \(seq \d+\); its bytes differ from character \d+: "It is 12:02\. You are/m);
    await expect(assertFixture(dir, current, { cacheFloor: 0.95 })).rejects.toMatchObject({ code: "FIXTURE_MISMATCH", message: text });

    const met = await checkFixture(dir, current, { cacheFloor: cache.share! - 0.01 });
    expect(met.ok).toBe(true);
    expect(formatFixtureReport(met)).toBe(`fixture stamped: unchanged (5 requests); cache-read share ${share} (floor ${(100 * (cache.share! - 0.01)).toFixed(1)}%)`);
    // Without limits the cache is not modelled at all.
    expect((await checkFixture(dir, current)).cache).toBeUndefined();
  });

  it("measures write amplification where the provider bills writes: a steady session writes each new token about once, a stamped one rewrites", async () => {
    const steady = await checkFixture(await record(), current, { maxWriteAmp: 1.5 });
    expect(steady.ok).toBe(true);
    expect(steady.cache!.breaks).toEqual([]);
    expect(steady.cache!.writeAmp).toBeGreaterThan(0.5);
    expect(steady.cache!.writeAmp).toBeLessThanOrEqual(1.5);
    const stamped = await checkFixture(await record(1), current, { maxWriteAmp: steady.cache!.writeAmp! });
    expect(stamped.ok).toBe(false);
    expect(stamped.cache!.writeAmp).toBeGreaterThan(steady.cache!.writeAmp!);
    expect(formatFixtureReport(stamped).split("\n")[0]).toMatch(/^fixture stamped: unchanged \(6 requests\), but cache-read share \d+\.\d% , ?|write amplification \d\.\d\d \(at most [\d.]+: exceeded\)$/);
  });
});
