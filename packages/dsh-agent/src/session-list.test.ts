import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlStore } from "dsh-log";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentRegistry } from "./register.js";
import { sessionParentEvent } from "./session-parent.js";
import { listSessionTree, subagentParentOf } from "./session-list.js";

let dir: string;
let store: JsonlStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-session-list-"));
  store = new JsonlStore(dir);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A session created at `createdAt`, made by call `callId` of `parent` when given. */
async function session(sessionId: string, createdAt: number, parent?: string, callId = "c") {
  const { log } = await store.create({ registry: createAgentRegistry(), sessionId, createdAt });
  if (parent !== undefined) await log.append(sessionParentEvent.input({ sessionId: parent, answerSeq: 3, callId, toolName: "research" }));
  await log.close();
}

describe("listSessionTree", () => {
  it("lists each subagent session right after its parent, a level deeper, siblings oldest first; the rest in list order", async () => {
    await session("p", 1);
    await session("q", 2);
    await session("c2", 4, "p", "b");
    await session("c1", 3, "p", "a");
    await session("g", 5, "c1");
    await session("orphan", 6, "gone");
    const listed = await listSessionTree(store);
    expect(listed.map(({ sessionId, depth }) => [sessionId, depth])).toEqual([
      ["p", 0],
      ["c1", 1],
      ["g", 2],
      ["c2", 1],
      ["q", 0],
      ["orphan", 0],
    ]);
    expect(listed[1]).toMatchObject({ sessionId: "c1", createdAt: 3, events: 1, subagentOf: { sessionId: "p", answerSeq: 3, callId: "a", toolName: "research" } });
    expect("subagentOf" in listed[0]!).toBe(false);
    // A subagent session whose parent is not listed is a root, still naming its parent.
    expect(listed[5]).toMatchObject({ depth: 0, subagentOf: { sessionId: "gone" } });
    // Of the sessions given, only those.
    expect((await listSessionTree(store, (await store.list()).filter((summary) => summary.sessionId !== "c1"))).map(({ sessionId, depth }) => [sessionId, depth])).toEqual([
      ["p", 0],
      ["c2", 1],
      ["q", 0],
      ["g", 0],
      ["orphan", 0],
    ]);
  });

  it("lists a subagent session created before its parent (a copied store) under its parent all the same", async () => {
    await session("early-child", 1, "late-parent");
    await session("late-parent", 2);
    expect((await listSessionTree(store)).map(({ sessionId, depth }) => [sessionId, depth])).toEqual([
      ["late-parent", 0],
      ["early-child", 1],
    ]);
  });

  it("reads one line of each session, however long", async () => {
    await session("p", 1);
    const asked: unknown[] = [];
    const spied = { list: () => store.list(), readLines: (id: string, options?: { to?: number }) => (asked.push(options), store.readLines(id, options)) };
    await listSessionTree(spied as unknown as JsonlStore);
    expect(asked).toEqual([{ to: 1 }]);
  });

  it("lists sessions that name each other as parents once each, as roots", async () => {
    await session("a", 1, "b");
    await session("b", 2, "a");
    expect((await listSessionTree(store)).map(({ sessionId, depth }) => [sessionId, depth])).toEqual([
      ["a", 0],
      ["b", 1],
    ]);
  });

  it("reads more sessions than it reads at once, each once", async () => {
    await session("root", 0);
    for (let i = 1; i <= 20; i++) await session(`s${String(i).padStart(2, "0")}`, i, "root", `c${i}`);
    const listed = await listSessionTree(store);
    expect(listed).toHaveLength(21);
    expect(listed.slice(1).every((entry, i) => entry.depth === 1 && entry.sessionId === `s${String(i + 1).padStart(2, "0")}`)).toBe(true);
  });
});

describe("subagentParentOf", () => {
  it("is the call a session's first event names, and nothing for an empty session or one that starts otherwise", async () => {
    await session("child", 1, "p", "call-9");
    await session("empty", 2);
    expect(await subagentParentOf(store, "child")).toEqual({ sessionId: "p", answerSeq: 3, callId: "call-9", toolName: "research" });
    expect(await subagentParentOf(store, "empty")).toBeUndefined();
    const { log } = await store.open("empty", { registry: createAgentRegistry() });
    await log.append({ type: "turn/start", data: { turn: 0 } });
    await log.close();
    expect(await subagentParentOf(store, "empty")).toBeUndefined();
  });
});
