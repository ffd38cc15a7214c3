import { createAgentRegistry } from "dsh-agent";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { MeasuredSessions } from "./web-pages.js";
import type { MeasuredSession } from "./web-view.js";

describe("MeasuredSessions", () => {
  it("measures a session again only when its log has grown or another session is asked for", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    await log.append({ type: "turn/start", data: { turn: 0 } });
    const cache = new MeasuredSessions();
    let measured = 0;
    const measure = async (): Promise<MeasuredSession> => {
      measured++;
      return { requests: [], facts: [] };
    };
    const first = await cache.of("a", log, measure);
    expect(await cache.of("a", log, measure)).toBe(first);
    expect(measured).toBe(1);
    await log.append({ type: "turn/end", data: { turn: 0, reason: "completed" } });
    const grown = await cache.of("a", log, measure);
    expect(grown).not.toBe(first);
    expect(await cache.of("b", log, measure)).not.toBe(grown);
    // Only the last session is kept.
    await cache.of("a", log, measure);
    expect(measured).toBe(4);
  });

  it("keeps nothing from a measurement that failed", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const cache = new MeasuredSessions();
    await expect(cache.of("a", log, () => Promise.reject(new Error("unreadable")))).rejects.toThrow("unreadable");
    let measured = 0;
    await cache.of("a", log, async () => {
      measured++;
      return { requests: [], facts: [] };
    });
    expect(measured).toBe(1);
  });
});
