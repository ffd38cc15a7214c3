import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_SAVED_FINGERPRINTS, readCacheFile, writeCacheFile } from "./cache-file.js";
import { startSimulator } from "./server.js";

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-sim-cache-"));
  file = join(dir, "state", "cache.json");
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

const system = "You keep answers short and plain. ".repeat(250);

/** One request's usage as the simulator reports it, in either dialect. */
async function usage(url: string, messagesApi: boolean): Promise<Record<string, number>> {
  const body = messagesApi
    ? { model: "claude-sonnet-4-6", max_tokens: 64, stream: true, system: [{ type: "text", text: system, cache_control: { type: "ephemeral", ttl: "5m" } }], messages: [{ role: "user", content: "hi" }] }
    : { model: "sim-1", stream: true, messages: [{ role: "system", content: system }, { role: "user", content: "hi" }] };
  const text = await (await fetch(`${url}${messagesApi ? "/v1/messages" : "/chat/completions"}`, { method: "POST", body: JSON.stringify(body) })).text();
  type Frame = { usage?: Record<string, number>; message?: { usage?: Record<string, number> } };
  const frames = text.split("\n").filter((line) => line.startsWith("data: {")).map((line) => JSON.parse(line.slice(6)) as Frame);
  return Object.assign({}, ...frames.map((frame) => ({ ...frame.message?.usage, ...frame.usage }))) as Record<string, number>;
}

/** Serves one request on a simulator that keeps its caches in `file`, then closes it. */
async function once(messagesApi: boolean): Promise<Record<string, number>> {
  const sim = await startSimulator({ scenario: { responses: [{ text: "ok" }] }, cacheFile: file });
  try {
    return await usage(messagesApi ? sim.origin : sim.url, messagesApi);
  } finally {
    await sim.close();
  }
}

describe("a simulator's cache file", () => {
  it("carries the prefix cache to the next simulator, as a provider's cache outlives a client", async () => {
    expect((await once(false)).prompt_cache_hit_tokens).toBe(0);
    const second = await once(false);
    expect(second.prompt_cache_hit_tokens).toBeGreaterThan(0);
    expect(second.prompt_cache_hit_tokens).toBe(second.prompt_tokens! - (second.prompt_tokens! % 64));
    const sim = await startSimulator({ scenario: { responses: [{ text: "ok" }] } });
    expect((await usage(sim.url, false)).prompt_cache_hit_tokens).toBe(0); // without the file, a cold cache
    await sim.close();
  });

  it("ages explicit-cache entries in wall-clock time between simulators: read within the TTL, gone after it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_000_000);
    const written = await once(true);
    expect(written.cache_creation_input_tokens).toBeGreaterThan(0);
    vi.setSystemTime(1_000_000 + 4 * 60_000);
    expect((await once(true)).cache_read_input_tokens).toBe(written.cache_creation_input_tokens);
    // The read refreshed the entry at 4 min; 5 min after that it has expired.
    vi.setSystemTime(1_000_000 + 9 * 60_000 + 1);
    expect((await once(true)).cache_read_input_tokens).toBe(0);
  });

  it("merges with what another simulator saved meanwhile and drops expired entries", async () => {
    await writeCacheFile(file, { prefixes: ["a", "b"], explicit: [["x", 500], ["y", 2_000]] }, 0);
    await writeCacheFile(file, { prefixes: ["c", "a"], explicit: [["y", 1_500], ["z", 900]] }, 1_000);
    expect(await readCacheFile(file)).toEqual({ format: "dsh-simulator-cache", version: 1, prefixes: ["b", "c", "a"], explicit: [["y", 2_000]], fingerprints: [] });
  });

  it("keeps the newest diagnosis fingerprints of both writers, the same id written last winning", async () => {
    const print = (base: number) => ({ settings: [["model_changed", "m"]] as [string, string][], base, partsReason: "input_changed", parts: [] });
    await writeCacheFile(file, { prefixes: [], explicit: [], fingerprints: [["r1", print(1)], ["r2", print(2)]] }, 0);
    await writeCacheFile(file, { prefixes: [], explicit: [], fingerprints: [["r2", print(3)], ["r3", print(4)]] }, 0);
    expect((await readCacheFile(file)).fingerprints).toEqual([["r1", print(1)], ["r2", print(3)], ["r3", print(4)]]);
    const many = Array.from({ length: MAX_SAVED_FINGERPRINTS + 5 }, (_, i) => [`m${i}`, print(i)] as const);
    await writeCacheFile(file, { prefixes: [], explicit: [], fingerprints: many }, 0);
    const kept = (await readCacheFile(file)).fingerprints!;
    expect(kept).toHaveLength(MAX_SAVED_FINGERPRINTS);
    expect(kept.at(-1)![0]).toBe(`m${MAX_SAVED_FINGERPRINTS + 4}`);
  });

  it("starts empty without a file and refuses a file that is not a cache file, naming it", async () => {
    expect(await readCacheFile(join(dir, "none.json"))).toEqual({ prefixes: [], explicit: [] });
    await writeFile(join(dir, "bad.json"), '{"format":"other"}');
    await expect(readCacheFile(join(dir, "bad.json"))).rejects.toThrow(`${join(dir, "bad.json")} is not a simulator cache file (delete it to start with an empty cache)`);
    await writeFile(join(dir, "torn.json"), '{"format":"dsh-sim');
    await expect(startSimulator({ scenario: { responses: [] }, cacheFile: join(dir, "torn.json") })).rejects.toThrow("is not a simulator cache file");
    await expect(readCacheFile(dir)).rejects.toThrow(`cannot read the simulator cache ${dir}`);
  });

  it("writes the file whole, readable only by its owner", async () => {
    await once(false);
    const text = await readFile(file, "utf8");
    expect(JSON.parse(text)).toMatchObject({ format: "dsh-simulator-cache", version: 1 });
    const { stat } = await import("node:fs/promises");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
