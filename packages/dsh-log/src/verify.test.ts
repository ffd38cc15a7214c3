import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionChain } from "./chain.js";
import { createJsonlLog, openJsonlLog } from "./jsonl-file.js";
import { readJsonlLines } from "./jsonl-lines.js";
import { signHead, type SignedHead } from "./signed-head.js";
import { appendRawEvents } from "./test-support/raw-lines.js";
import { noteAdded, testRegistry } from "./test-support/registry.js";
import { describeVerifyReport, verifyLines } from "./verify.js";
import { FileWitness, readWitnessFile, type HeadWitness } from "./witness.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-verify-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const keys = () => generateKeyPairSync("ed25519");

/** A chained log of `count` notes in commits of two, written with `signing` when given. */
async function written(count: number, signing?: { key: KeyObject; witness: HeadWitness }): Promise<string> {
  const path = join(dir, "s.jsonl");
  const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "s", createdAt: 7, signing });
  for (let i = 0; i < count; i += 2) await log.append([noteAdded.input({ text: `n${i}` }, 1), noteAdded.input({ text: `n${i + 1}` }, 1)].slice(0, count - i));
  await log.close();
  return path;
}

async function rewriteLine(path: string, index: number, edit: (line: string) => string): Promise<void> {
  const lines = (await readFile(path, "utf8")).split("\n");
  lines[index + 1] = edit(lines[index + 1]!);
  await writeFile(path, lines.join("\n"));
}

describe("verifyLines on a JSONL log", () => {
  it("finds an untouched log intact, its head the chain over its lines", async () => {
    const path = await written(5);
    const lines = (await readFile(path, "utf8")).split("\n").slice(1, -1);
    const chain = SessionChain.start({ sessionId: "s", createdAt: 7 });
    chain.extend(lines.map((line) => `{${line.replace(/ $/, "").slice(55)}`));
    expect(await verifyLines(await readJsonlLines(path))).toEqual({ sessionId: "s", status: "intact", events: 5, head: chain.head.head, witnessed: 0, unwitnessed: 5 });
  });

  it("names the first event an edit, a removal or a missing link breaks", async () => {
    const path = await written(6);
    const original = await readFile(path, "utf8");
    await rewriteLine(path, 3, (line) => line.replace("n3", "n9"));
    expect(await verifyLines(await readJsonlLines(path))).toMatchObject({ status: "broken", seq: 3, events: 6, problem: "seq 3 breaks the chain: its line or a line before it was changed, added or removed" });
    await writeFile(path, original);
    await rewriteLine(path, 1, () => "\u0000");
    await writeFile(path, (await readFile(path, "utf8")).replace("\u0000\n", ""));
    expect(await verifyLines(await readJsonlLines(path))).toMatchObject({ status: "broken", seq: 1, events: 5 });
    await writeFile(path, original);
    await rewriteLine(path, 4, (line) => line.replace('{"chain":"', '{"chain":"x'));
    expect(await verifyLines(await readJsonlLines(path))).toMatchObject({ status: "broken", seq: 4, problem: "seq 4 carries no chain link" });
  });

  it("says a log written before chains is unchained, and counts its events", async () => {
    const path = join(dir, "old.jsonl");
    await writeFile(path, '{"format":"dsh-log","version":1,"sessionId":"old","createdAt":1}\n{"seq":0,"type":"note/added","time":1,"data":{"text":"a"}}\n');
    expect(await verifyLines(await readJsonlLines(path))).toMatchObject({ status: "unchained", events: 1, problem: expect.stringMatching(/^the session was written before hash chains/) });
    await expect(openJsonlLog(path, { registry: testRegistry(), signing: { key: keys().privateKey, witness: new FileWitness(join(dir, "w")) } })).rejects.toMatchObject({ code: "LOG_UNSUPPORTED_FORMAT" });
  });
});

describe("signed heads and a witness", () => {
  it("witnesses the head at creation and after commits, and a truncated tail is named against the witness", async () => {
    const { privateKey, publicKey } = keys();
    const witnessPath = join(dir, "witness.jsonl");
    const witness = new FileWitness(witnessPath);
    const path = await written(4, { key: privateKey, witness });
    await witness.close();
    const heads = await readWitnessFile(witnessPath);
    expect(heads[0]).toMatchObject({ sessionId: "s", events: 0 });
    expect(heads.at(-1)).toMatchObject({ sessionId: "s", events: 4 });
    const intact = await verifyLines(await readJsonlLines(path), { heads, publicKey });
    expect(intact).toMatchObject({ status: "intact", events: 4, witnessed: heads.length, unwitnessed: 0, head: heads.at(-1)!.head });
    // Dropping the last commit leaves a chain that is intact on its own: only the witness sees it.
    const bytes = await readFile(path, "utf8");
    await truncate(path, Buffer.byteLength(bytes.split("\n").slice(0, 3).join("\n")) + 1);
    expect(await verifyLines(await readJsonlLines(path))).toMatchObject({ status: "intact", events: 2 });
    expect(await verifyLines(await readJsonlLines(path), { heads, publicKey })).toMatchObject({
      status: "broken",
      events: 2,
      witnessedHead: { events: 4 },
      problem: "the log ends at 2 events, but the witness holds a head signed at 4: its tail was dropped",
    });
  });

  it("catches a log rewritten with links recomputed, a head from another key and an altered head", async () => {
    const { privateKey, publicKey } = keys();
    const witnessPath = join(dir, "witness.jsonl");
    const path = await written(4, { key: privateKey, witness: new FileWitness(witnessPath) });
    const heads = await readWitnessFile(witnessPath);
    const bytes = await readFile(path, "utf8");
    await truncate(path, Buffer.byteLength(bytes.split("\n").slice(0, 3).join("\n")) + 1);
    await appendRawEvents(path, [{ seq: 2, type: "note/added", time: 1, data: { text: "forged" } }, { seq: 3, type: "note/added", time: 1, data: { text: "n3" } }]);
    expect(await verifyLines(await readJsonlLines(path))).toMatchObject({ status: "intact" });
    expect(await verifyLines(await readJsonlLines(path), { heads, publicKey })).toMatchObject({
      status: "broken",
      witnessedHead: { events: 4 },
      problem: "the head witnessed at 4 events no longer matches: the log was rewritten at or before seq 3",
    });
    const other = keys();
    const foreign = signHead({ sessionId: "s", events: 4, head: heads.at(-1)!.head }, other.privateKey);
    expect(await verifyLines(await readJsonlLines(path), { heads: [foreign], publicKey })).toMatchObject({ status: "broken", problem: expect.stringMatching(/^the witness's head at 4 events is not valid: it is signed by key [0-9a-f]{16}, not by the given key/) });
    const altered: SignedHead = { ...heads.at(-1)!, events: 3 };
    expect(await verifyLines(await readJsonlLines(path), { heads: [altered], publicKey })).toMatchObject({ status: "broken", problem: "the witness's head at 3 events is not valid: its signature does not match its fields" });
  });

  it("signs only the newest head while the witness is busy, and a failing witness refuses the next append", async () => {
    const { privateKey, publicKey } = keys();
    const seen: SignedHead[] = [];
    let fail = false;
    let refused: () => void = () => undefined;
    const witnessRefused = new Promise<void>((resolve) => (refused = resolve));
    const witness: HeadWitness = {
      append: async (head) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (fail) {
          refused();
          throw new Error("disk full");
        }
        seen.push(head);
      },
    };
    const path = join(dir, "busy.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "busy", signing: { key: privateKey, witness } });
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(noteAdded.input({ text: String(i) }))));
    await log.close();
    expect(seen.length).toBeLessThan(50);
    expect(seen.map((head) => head.events)).toEqual([...seen.map((head) => head.events)].sort((a, b) => a - b));
    expect(seen.at(-1)!.events).toBe(50);
    expect(await verifyLines(await readJsonlLines(path), { heads: seen, publicKey })).toMatchObject({ status: "intact", unwitnessed: 0 });

    fail = true;
    const reopened = await openJsonlLog(path, { registry: testRegistry(), signing: { key: privateKey, witness } });
    await reopened.log.append(noteAdded.input({ text: "unwitnessed" }));
    // Once the witness threw, every microtask the log runs on its refusal runs before the next turn.
    await witnessRefused;
    await new Promise((resolve) => setImmediate(resolve));
    await expect(reopened.log.append(noteAdded.input({ text: "refused" }))).rejects.toMatchObject({ code: "LOG_WITNESS_FAILED" });
    await expect(reopened.log.close()).rejects.toMatchObject({ code: "LOG_WITNESS_FAILED", message: expect.stringMatching(/the witness refused the head at 51 events: disk full/) });
  });
});

describe("verifyLines on stored lines from any store", () => {
  const stored = (lines: readonly string[], recorded?: number) => {
    const chain = SessionChain.start({ sessionId: "m", createdAt: 1 });
    const links = chain.extend(lines);
    return { info: { sessionId: "m", createdAt: 1 }, chained: true, ...(recorded === undefined ? {} : { recorded }), lines: lines.map((line, i) => ({ line, link: links[i] })) };
  };

  it("refuses rows that disagree with the head a store records, and counts the unwitnessed events after the last head", async () => {
    expect(await verifyLines(stored(["a", "b", "c"], 4))).toMatchObject({ status: "broken", seq: 3, problem: "the store records 4 events, but 3 lines are stored" });
    expect(await verifyLines(stored(["a", "b", "c"], 2))).toMatchObject({ status: "broken", seq: 2 });
    const { privateKey, publicKey } = keys();
    const chain = SessionChain.start({ sessionId: "m", createdAt: 1 });
    chain.extend(["a", "b"]);
    const atTwo = signHead(chain.head, privateKey);
    // A head of another session in a shared witness is not this session's business.
    const foreign = signHead({ sessionId: "other", events: 9, head: "00".repeat(32) }, privateKey);
    expect(await verifyLines(stored(["a", "b", "c", "d"], 4), { heads: [atTwo, foreign], publicKey })).toMatchObject({
      status: "unwitnessed",
      witnessed: 1,
      unwitnessed: 2,
      head: SessionChain.start({ sessionId: "m", createdAt: 1 }).extend(["a", "b", "c", "d"]).at(-1)!.toString("hex"),
      problem: "the last signed head covers 2 of 4 events: the 2 after it are not witnessed (a writer that stopped before its witness caught up, or appends made without the key)",
    });
    chain.extend(["c"]);
    expect(await verifyLines(stored(["a", "b", "c", "d"], 4), { heads: [signHead(chain.head, privateKey), atTwo], publicKey })).toMatchObject({ status: "unwitnessed", unwitnessed: 1, problem: expect.stringMatching(/covers 3 of 4 events: the 1 after it is not witnessed/) });
    const beyond = [6, 9, 7].map((events) => signHead({ sessionId: "m", events, head: "00".repeat(32) }, privateKey));
    expect(await verifyLines(stored(["a", "b"]), { heads: beyond, publicKey })).toMatchObject({ status: "broken", witnessedHead: { events: 9 }, problem: "the log ends at 2 events, but the witness holds a head signed at 9: its tail was dropped" });
  });

  it("calls a chain intact against a witness only when a head of this session covers it to its end", async () => {
    const { privateKey, publicKey } = keys();
    const lines = ["a", "b", "c"];
    const chain = SessionChain.start({ sessionId: "m", createdAt: 1 });
    chain.extend(lines);
    const atEnd = signHead(chain.head, privateKey);
    expect(await verifyLines(stored(lines), { heads: [atEnd], publicKey })).toMatchObject({ status: "intact", witnessed: 1, unwitnessed: 0, head: atEnd.head });
    // An empty witness, another session's heads, or a session forged under a new id with its chain recomputed: nothing covers it.
    const forgedChain = SessionChain.start({ sessionId: "forged", createdAt: 1 });
    const forged = { info: { sessionId: "forged", createdAt: 1 }, chained: true, lines: forgedChain.extend(lines).map((link, i) => ({ line: lines[i]!, link })) };
    for (const [log, heads] of [[stored(lines), []], [forged, [atEnd]]] as const) {
      const report = await verifyLines(log, { heads, publicKey });
      expect(report).toMatchObject({ status: "unwitnessed", witnessed: 0, unwitnessed: 3, problem: `no head in the witness is of session ${log.info.sessionId}: none of its 3 events is witnessed (a log signed with no key, or with another witness)` });
    }
    // Without a witness the chain alone is checked, and it holds.
    expect(await verifyLines(forged)).toMatchObject({ status: "intact", unwitnessed: 3 });
  });

  it("compares a head witnessed at 0 events with the session's identity, and names a tail of exactly one dropped event", async () => {
    const { privateKey, publicKey } = keys();
    const wrongStart = signHead({ sessionId: "m", events: 0, head: "00".repeat(32) }, privateKey);
    expect(await verifyLines(stored(["a"]), { heads: [wrongStart], publicKey })).toMatchObject({
      status: "broken",
      witnessedHead: { events: 0 },
      problem: "the head witnessed at 0 events no longer matches: the session's identity (its id, creation time or parent) was changed",
    });
    const chain = SessionChain.start({ sessionId: "m", createdAt: 1 });
    const start = signHead(chain.head, privateKey);
    chain.extend(["a", "b"]);
    const atTwo = signHead(chain.head, privateKey);
    expect(await verifyLines(stored(["a", "b"]), { heads: [start, atTwo], publicKey })).toMatchObject({ status: "intact" });
    // Two heads at one length: the one that no longer matches is found, whichever comes first.
    const wrongAtTwo = signHead({ sessionId: "m", events: 2, head: "00".repeat(32) }, privateKey);
    for (const heads of [[wrongAtTwo, atTwo], [atTwo, wrongAtTwo]]) {
      expect(await verifyLines(stored(["a", "b"]), { heads, publicKey })).toMatchObject({ status: "broken", witnessedHead: { events: 2, head: "00".repeat(32) } });
    }
    expect(await verifyLines(stored(["a"]), { heads: [start, atTwo], publicKey })).toMatchObject({
      status: "broken",
      events: 1,
      unwitnessed: 1,
      witnessedHead: { events: 2 },
      problem: "the log ends at 1 events, but the witness holds a head signed at 2: its tail was dropped",
    });
  });

  it("witnesses nothing more when a signed session is reopened and closed without an append", async () => {
    const { privateKey } = keys();
    const seen: SignedHead[] = [];
    const witness: HeadWitness = { append: async (head) => void seen.push(head) };
    const path = await written(2, { key: privateKey, witness });
    expect(seen.map((head) => head.events)).toEqual([0, 2]);
    await (await openJsonlLog(path, { registry: testRegistry(), signing: { key: privateKey, witness } })).log.close();
    expect(seen.map((head) => head.events)).toEqual([0, 2]);
  });
});

describe("describeVerifyReport", () => {
  const base = { sessionId: "s", events: 4, witnessed: 0, unwitnessed: 0 } as const;
  it("says the status, the session and what was checked or what broke, in one line", () => {
    expect(describeVerifyReport({ ...base, status: "intact", head: "ab" })).toBe("intact: session s, 4 events, chain head ab");
    expect(describeVerifyReport({ ...base, status: "intact", head: "ab", witnessed: 2 })).toBe("intact: session s, 4 events, chain head ab; 2 signed head(s) checked");
    expect(describeVerifyReport({ ...base, status: "intact", head: "ab", witnessed: 1, unwitnessed: 3 })).toBe("intact: session s, 4 events, chain head ab; 1 signed head(s) checked, 3 event(s) after the last one not witnessed");
    expect(describeVerifyReport({ ...base, status: "unchained" })).toBe("unchained: session s (4 events) was written before hash chains; nothing to check (dsh copy makes a chained copy)");
    expect(describeVerifyReport({ ...base, status: "broken", problem: "seq 2 was changed" })).toBe("broken: session s: seq 2 was changed");
    expect(describeVerifyReport({ ...base, status: "broken" })).toBe("broken: session s: the chain does not hold");
    expect(describeVerifyReport({ ...base, status: "unwitnessed", problem: "3 events are not" })).toBe("unwitnessed: session s: the chain holds, but 3 events are not");
    expect(describeVerifyReport({ ...base, status: "unwitnessed" })).toBe("unwitnessed: session s: the chain holds, but no signed head covers it");
  });
});
