import { describe, expect, it } from "vitest";
import { assertFixture, checkFixture } from "./check.js";
import { formatFixtureReport } from "./report.js";
import { recordFixture } from "./record.js";
import { current, record } from "./test-support/cache-session.js";
import { echoSession, fixtureDir } from "./test-support/session.js";

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

  it("holds a limit the replay meets exactly, and refuses limits on requests whose API it cannot tell", async () => {
    const dir = await record(2);
    const { share, writeAmp } = (await checkFixture(dir, current, { cacheFloor: 0.01, maxWriteAmp: 100 })).cache!;
    expect((await checkFixture(dir, current, { cacheFloor: share!, maxWriteAmp: writeAmp! })).ok).toBe(true);
    expect((await checkFixture(dir, current, { cacheFloor: share! + 1e-9 })).ok).toBe(false);
    expect((await checkFixture(dir, current, { maxWriteAmp: writeAmp! - 1e-9 })).ok).toBe(false);
    // The echo session's provider names no wire profile, so its cache cannot be modelled.
    const echo = await fixtureDir();
    await recordFixture(await echoSession(), echo);
    await expect(checkFixture(echo, {}, { cacheFloor: 0.5 })).rejects.toMatchObject({ code: "FIXTURE_CACHE_UNMODELLED", message: expect.stringMatching(/^its cache cannot be modelled: the log names provider scripted and no wire profile/) });
  });
});

