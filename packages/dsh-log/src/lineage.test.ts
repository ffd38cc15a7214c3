import { describe, expect, it } from "vitest";
import { brokenLineage } from "./lineage.js";

describe("brokenLineage", () => {
  it("names a fork whose parent is gone or shorter than its seed, and nothing else", () => {
    const at = (sessionId: string, events: number, parent?: { sessionId: string; seedLength: number }) => ({ sessionId, createdAt: 1, events, ...(parent === undefined ? {} : { parent }) });
    expect([...brokenLineage([at("p", 5), at("ok", 7, { sessionId: "p", seedLength: 5 }), at("long", 9, { sessionId: "p", seedLength: 6 }), at("orphan", 3, { sessionId: "gone", seedLength: 2 })])]).toEqual([
      ["long", "its seed of 6 events is past its parent's end (5 events)"],
      ["orphan", "its parent gone is not in this store"],
    ]);
  });
});
