import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestHeaderEvent } from "dsh-header";
import { JsonlStore, describeVerifyReport, verifyLines } from "dsh-log";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestDispatchEvent, stepStartEvent, turnStartEvent } from "./events.js";
import { createAgentRegistry } from "./register.js";
import { sessionParentEvent } from "./session-parent.js";
import { describeTreeSession, verifySessionTree, verifyStoreSessions, type StoreSessionCheck } from "./session-tree.js";

let dir: string;
let store: JsonlStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-store-check-"));
  store = new JsonlStore(dir);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const text = (value: string) => [{ type: "text" as const, text: value }];

/** A parent "p" whose call "a" linked the child "c" as it stood then; returns the seq of the result. */
async function tree(): Promise<number> {
  const child = await store.create({ registry: createAgentRegistry(), sessionId: "c", createdAt: 2 });
  await child.log.append([sessionParentEvent.input({ sessionId: "p", answerSeq: 6, callId: "a", toolName: "research" }), turnStartEvent.input({ turn: 0 })]);
  await child.log.close();
  const { head, events } = await verifyLines(await store.readLines("c"));
  const parent = await store.create({ registry: createAgentRegistry(), sessionId: "p", createdAt: 1 });
  const [, , , , , , , result] = await parent.log.append([
    turnStartEvent.input({ turn: 0 }),
    stepStartEvent.input({ turn: 0, step: 0 }),
    systemMessageEvent.input({ content: "s", source: "system-prompt" }),
    userMessageEvent.input({ content: text("q"), source: "user" }),
    requestHeaderEvent.input({ reason: "initial", header: { config: { provider: "p", model: "m" } } }),
    requestDispatchEvent.input({ turn: 0, step: 0 }),
    assistantMessageEvent.input({ content: [{ type: "tool-call", callId: "a", name: "research", arguments: "{}" }], source: "model" }),
    toolResultEvent.input({ callId: "a", toolName: "research", content: text("found"), isError: false, source: "tool", child: { sessionId: "c", events, head: head! } }),
  ]);
  await parent.log.close();
  return result!.seq;
}

async function checks(): Promise<StoreSessionCheck[]> {
  const out: StoreSessionCheck[] = [];
  for await (const check of verifyStoreSessions(store)) out.push(check);
  return out;
}

describe("verifyStoreSessions", () => {
  it("checks every session's chain once, oldest first, and the links of each intact one", async () => {
    const seq = await tree();
    const intact = await checks();
    expect(intact.map(({ report, linkProblems }) => [report.sessionId, report.status, linkProblems.length])).toEqual([
      ["p", "intact", 0],
      ["c", "intact", 0],
    ]);
    // The child edited: its own chain breaks, and its parent's link no longer holds.
    const path = join(dir, "c.jsonl");
    await writeFile(path, (await readFile(path, "utf8")).replace('"callId":"a"', '"callId":"b"'));
    const edited = await checks();
    expect(edited.map(({ report }) => [report.sessionId, report.status])).toEqual([
      ["p", "intact"],
      ["c", "broken"],
    ]);
    expect(edited[0]!.linkProblems).toEqual([{ sessionId: "c", parent: { sessionId: "p", seq }, problem: `session p's result at seq ${seq} links session c, whose first event does not name that call (a) of session p as its parent` }]);
    expect(edited[1]!.linkProblems).toEqual([]);
    // A parent whose own chain breaks is not asked about its links.
    const parentPath = join(dir, "p.jsonl");
    await writeFile(parentPath, (await readFile(parentPath, "utf8")).replace('"text":"found"', '"text":"fount"'));
    const [parent] = await checks();
    expect([parent!.report.status, parent!.linkProblems]).toEqual(["broken", []]);
  });
});

describe("describeTreeSession", () => {
  it("says a child's chain after the call that linked it, a problem as it is, and a root's chain alone", async () => {
    const seq = await tree();
    const [root, child] = (await verifySessionTree(store, "p")).sessions;
    expect(describeTreeSession(root!)).toBe(describeVerifyReport(root!.report!));
    expect(describeTreeSession(child!)).toBe(`subagent of p (its result at seq ${seq}): ${describeVerifyReport(child!.report!)}`);
    expect(describeTreeSession({ sessionId: "c", problem: "it is gone" })).toBe("it is gone");
    expect(describeTreeSession({ sessionId: "c" })).toBe("session c: not checked");
    // A child whose own chain broke has both: the problem is what is said.
    expect(describeTreeSession({ ...child!, problem: "session c is broken" })).toBe("session c is broken");
  });
});
