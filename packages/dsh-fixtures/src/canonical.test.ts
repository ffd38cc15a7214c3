import { describe, expect, it } from "vitest";
import { CANONICAL_EPOCH, canonicalSession, canonicalTime, relativizePaths } from "./canonical.js";

describe("relativizePaths", () => {
  it("makes paths under the working directory relative and the directory itself '.'", () => {
    expect(relativizePaths('{"path":"/home/me/proj/src/a.ts"}', "/home/me/proj")).toBe('{"path":"src/a.ts"}');
    expect(relativizePaths('{"path":"/home/me/proj"}', "/home/me/proj")).toBe('{"path":"."}');
    expect(relativizePaths("in /home/me/proj: ok", "/home/me/proj")).toBe("in .: ok");
    expect(relativizePaths("/home/me/proj/a and /home/me/proj/b", "/home/me/proj")).toBe("a and b");
  });

  it("leaves longer names, other paths, and a root or missing directory alone", () => {
    expect(relativizePaths("/home/me/proj-old/a /home/me/projX", "/home/me/proj")).toBe("/home/me/proj-old/a /home/me/projX");
    expect(relativizePaths("/etc/hosts", "/home/me/proj")).toBe("/etc/hosts");
    expect(relativizePaths("/etc/hosts", "/")).toBe("/etc/hosts");
    expect(relativizePaths("/etc/hosts", undefined)).toBe("/etc/hosts");
  });
});

describe("canonicalSession", () => {
  it("replaces the session ids wherever they appear, keeps seqs, and gives stable times", () => {
    const header = { format: "dsh-log" as const, version: 1 as const, sessionId: "abc-123", createdAt: 99, parent: { sessionId: "parent-9", seedLength: 1 } };
    const events = [
      { seq: 0, type: "x/y", time: 5, data: { key: "abc-123", from: "parent-9", nested: ["abc-123 is not whole"], path: "/w/d/f" } },
      { seq: 1, type: "x/z", time: 7, data: { n: 1, flag: true, none: null } },
    ];
    const canonical = canonicalSession(header, events, { name: "demo", cwd: "/w/d" });
    expect(canonical.header).toEqual({ format: "dsh-log", version: 1, sessionId: "demo", createdAt: CANONICAL_EPOCH, parent: { sessionId: "demo-parent", seedLength: 1 } });
    expect(canonical.events).toEqual([
      { seq: 0, type: "x/y", time: canonicalTime(0), data: { key: "demo", from: "demo-parent", nested: ["abc-123 is not whole"], path: "f" } },
      { seq: 1, type: "x/z", time: CANONICAL_EPOCH + 1000, data: { n: 1, flag: true, none: null } },
    ]);
  });
});
