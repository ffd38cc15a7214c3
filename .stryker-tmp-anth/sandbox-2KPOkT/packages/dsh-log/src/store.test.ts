import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlStore } from "./jsonl-store.js";
import { eventLine } from "./session-lines.js";
import { checkSessionId, copySession, sessionInfo } from "./store.js";
import { noteAdded, testRegistry } from "./test-support/registry.js";

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

describe("copySession", () => {
  it("copies a fork into another store byte for byte, with its id, time and lineage, and refuses a taken id", async () => {
    const from = new JsonlStore(await mkdtemp(join(tmpdir(), "dsh-copy-from-")));
    const to = new JsonlStore(await mkdtemp(join(tmpdir(), "dsh-copy-to-")));
    const parent = await from.create({ registry: testRegistry(), sessionId: "parent", createdAt: 3 });
    await parent.log.append([noteAdded.input({ text: "a" }, 1), noteAdded.input({ text: "b" }, 2)]);
    await parent.log.close();
    const fork = await from.create({ registry: testRegistry(), sessionId: "fork", createdAt: 5, fork: { parentSessionId: "parent", seed: parent.log.slice(0, 1) } });
    await fork.log.append(noteAdded.input({ text: "c" }, 4));
    await fork.log.close();
    const source = await from.read("fork", testRegistry());
    const copy = await copySession(source, to);
    await copy.log.close();
    const read = await to.read("fork", testRegistry());
    expect(read.info).toEqual({ sessionId: "fork", createdAt: 5, parent: { sessionId: "parent", seedLength: 1 } });
    expect(read.log.slice().map(eventLine)).toEqual(source.log.slice().map(eventLine));
    await expect(copySession(source, to)).rejects.toMatchObject({ code: "LOG_EXISTS" });
  });
});
