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
  it("makes paths relative in tool-call arguments only: a path the model sees anywhere else stays as it is", () => {
    const header = { format: "dsh-log" as const, version: 1 as const, sessionId: "s", createdAt: 1 };
    const call = { type: "tool-call", callId: "c", name: "read_file", arguments: '{"path":"/w/d/src/a.ts"}' };
    const events = [
      { seq: 0, type: "assistant/message", time: 1, data: { content: [{ type: "text", text: "reading /w/d/src/a.ts" }, call], source: "model" } },
      { seq: 1, type: "tool/result", time: 2, data: { callId: "c", toolName: "read_file", content: [{ type: "text", text: "/w/d/src/a.ts: 3 lines" }], isError: false, source: "tool" } },
      { seq: 2, type: "user/message", time: 3, data: { content: [{ type: "text", text: "see /w/d/README" }], source: "user" } },
    ];
    const canonical = canonicalSession(header, events, { name: "demo", cwd: "/w/d" });
    expect(canonical.events.map((event) => JSON.stringify(event.data))).toEqual([
      JSON.stringify({ content: [{ type: "text", text: "reading /w/d/src/a.ts" }, { ...call, arguments: '{"path":"src/a.ts"}' }], source: "model" }),
      JSON.stringify(events[1]!.data),
      JSON.stringify(events[2]!.data),
    ]);
  });

  it("replaces the session ids wherever they appear, keeps seqs, and gives stable times", () => {
    const header = { format: "dsh-log" as const, version: 1 as const, sessionId: "abc-123", createdAt: 99, parent: { sessionId: "parent-9", seedLength: 1 } };
    const events = [
      { seq: 0, type: "x/y", time: 5, data: { key: "abc-123", from: "parent-9", nested: ["abc-123 is not whole"], path: "/w/d/f" } },
      { seq: 1, type: "x/z", time: 7, data: { n: 1, flag: true, none: null } },
    ];
    const canonical = canonicalSession(header, events, { name: "demo", cwd: "/w/d" });
    expect(canonical.header).toEqual({ format: "dsh-log", version: 1, sessionId: "demo", createdAt: CANONICAL_EPOCH, parent: { sessionId: "demo-parent", seedLength: 1 } });
    expect(canonical.events).toEqual([
      { seq: 0, type: "x/y", time: canonicalTime(0), data: { key: "demo", from: "demo-parent", nested: ["abc-123 is not whole"], path: "/w/d/f" } },
      { seq: 1, type: "x/z", time: CANONICAL_EPOCH + 1000, data: { n: 1, flag: true, none: null } },
    ]);
  });
});
