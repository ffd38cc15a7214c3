import { describe, expect, it } from "vitest";
import { checkSessionId, sessionInfo } from "./store.js";

describe("checkSessionId", () => {
  it("accepts 1-128 characters of [A-Za-z0-9._-] that start with a letter or digit", () => {
    for (const id of ["a", "0", "Run_2026-12-03.v2", "x".repeat(128)]) expect(checkSessionId(id)).toBe(id);
  });

  it.each(["", ".hidden", "-flag", "a/b", "a\\b", "a b", "a*", "x".repeat(129), "a..b", "é"])("refuses %j, saying what a session id is", (id) => {
    expect(() => checkSessionId(id)).toThrow(
      expect.objectContaining({ code: "LOG_BAD_SESSION_ID", message: `${JSON.stringify(id)} is not a session id: use 1-128 characters of [A-Za-z0-9._-]` }),
    );
  });
});

describe("sessionInfo", () => {
  it("reads a session's columns, with a parent only for a fork", () => {
    expect(sessionInfo("root", 5, null, null)).toEqual({ sessionId: "root", createdAt: 5 });
    expect(sessionInfo("child", 6, "root", 3)).toEqual({ sessionId: "child", createdAt: 6, parent: { sessionId: "root", seedLength: 3 } });
    expect(sessionInfo("child", 6, "root", null)).toEqual({ sessionId: "child", createdAt: 6, parent: { sessionId: "root", seedLength: 0 } });
  });
});
