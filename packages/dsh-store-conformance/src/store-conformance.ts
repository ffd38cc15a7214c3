import { fileURLToPath } from "node:url";
import { EventLog, streamSessionEvents, type LogEvent, type SessionStore } from "dsh-log";
import { eventLine } from "dsh-log/store";
import { runUntilKilled } from "dsh-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { storeNote, storeRegistry } from "./store-registry.js";

/** How a store's test suite gives the conformance suite its store. */
export interface StoreHarness {
  /** A fresh, empty store. */
  open(): Promise<SessionStore>;
  /** Replaces one stored event line behind the store's back, to prove admission on load. */
  corrupt(store: SessionStore, sessionId: string, seq: number, line: string): Promise<void>;
  /** For a relational store: runs one SQL statement behind the store's back (to damage its rows). */
  sql?(store: SessionStore, statement: string): Promise<void>;
  /** A module whose default export opens a store at a location in another process, for the crash test. */
  readonly factory: string;
  /** The location to give that factory for `store`. */
  locationOf(store: SessionStore): string;
}

const writer = fileURLToPath(new URL("./store-crash-writer.ts", import.meta.url));

/** The factory module of a store kind, for the crash writer. */
export function factoryModule(kind: "jsonl" | "sqlite" | "postgres"): string {
  return fileURLToPath(new URL(`./factories/${kind}.ts`, import.meta.url));
}

/** Runs the crash writer until `acks` batches are acknowledged, lets it run `lingerMs` more, SIGKILLs it; resolves the highest acknowledged seq. */
const runAndKill = (harness: StoreHarness, location: string, sessionId: string, acks: number, lingerMs: number) =>
  runUntilKilled(writer, [harness.factory, location, sessionId], acks, lingerMs);

/** Events whose bytes test what a store may not change: key order, integer-like keys, duplicates-free unicode, deep nesting. */
const awkward = [
  storeNote.input({ text: "plain" }, 1),
  storeNote.input({ text: "ordered", meta: { z: 1, a: 2, "10": 3, "2": [{ y: null, x: "é\u2028😀" }] } }, 2),
  storeNote.input({ text: "a \"quoted\" \\ line\nwith a newline", meta: { "": 0.1, big: 1e21, neg: -5 } }, 3),
];

/** The conformance suite every session store passes: the same behaviour whichever store holds a session. */
/** A function giving a fresh store of `harness` for each call, every one closed after each test. */
export function freshStores(harness: Pick<StoreHarness, "open">): () => Promise<SessionStore> {
  const stores: SessionStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  return async () => {
    const store = await harness.open();
    stores.push(store);
    return store;
  };
}

export function describeStoreConformance(name: string, harness: StoreHarness): void {
  const registry = storeRegistry();
  const fresh = freshStores(harness);

  describe(`${name}: the session store contract`, () => {
    it("keeps appended events byte for byte across a reopen, and lists the session with its count", async () => {
      const store = await fresh();
      const created = await store.create({ registry, sessionId: "s-1", createdAt: 1_700_000_000_000 });
      const appended = await created.log.append(awkward);
      await created.log.close();
      const read = await store.read("s-1", registry);
      expect(read.info).toEqual({ sessionId: "s-1", createdAt: 1_700_000_000_000 });
      expect(read.log.slice().map(eventLine)).toEqual(appended.map(eventLine));
      const again = await store.open("s-1", { registry });
      await again.log.append(storeNote.input({ text: "later" }, 4));
      await again.log.close();
      expect((await store.read("s-1", registry)).log.length).toBe(4);
      expect(await store.list()).toEqual([{ sessionId: "s-1", createdAt: 1_700_000_000_000, events: 4 }]);
    });

    it("summarizes one session as the list does, counting what was appended since it last asked", async () => {
      const store = await fresh();
      const created = await store.create({ registry, sessionId: "s-1", createdAt: 1_700_000_000_000 });
      expect(await store.summary("s-1")).toEqual({ sessionId: "s-1", createdAt: 1_700_000_000_000, events: 0 });
      await created.log.append(awkward);
      expect(await store.summary("s-1")).toEqual({ sessionId: "s-1", createdAt: 1_700_000_000_000, events: 3 });
      await created.log.append(storeNote.input({ text: "later" }, 4));
      await created.log.close();
      expect(await store.summary("s-1")).toEqual({ sessionId: "s-1", createdAt: 1_700_000_000_000, events: 4 });
      const fork = await store.create({ registry, sessionId: "child", createdAt: 7, fork: { parentSessionId: "s-1", seed: created.log.slice(0, 2) } });
      await fork.log.close();
      expect(await store.summary("child")).toEqual({ sessionId: "child", createdAt: 7, parent: { sessionId: "s-1", seedLength: 2 }, events: 2 });
      expect(await store.list()).toEqual([await store.summary("child"), await store.summary("s-1")]);
      await expect(store.summary("missing")).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
      await expect(store.summary("../etc/passwd")).rejects.toMatchObject({ code: "LOG_BAD_SESSION_ID" });
    });

    it("refuses a taken id, an unknown one and one that could name something else", async () => {
      const store = await fresh();
      await (await store.create({ registry, sessionId: "taken" })).log.close();
      await expect(store.create({ registry, sessionId: "taken" })).rejects.toMatchObject({ code: "LOG_EXISTS" });
      await expect(store.read("missing", registry)).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
      await expect(store.read("../etc/passwd", registry)).rejects.toMatchObject({ code: "LOG_BAD_SESSION_ID" });
    });

    it("admits events on load exactly as on append: a bad stored line is refused naming the session and seq", async () => {
      const store = await fresh();
      const { log } = await store.create({ registry, sessionId: "bad" });
      await log.append([storeNote.input({ text: "a" }, 1), storeNote.input({ text: "b" }, 2)]);
      await log.close();
      await harness.corrupt(store, "bad", 1, '{"seq":1,"type":"note/added","time":2,"data":{"text":7}}');
      await expect(store.read("bad", registry)).rejects.toMatchObject({ code: "LOG_INVALID_EVENT", message: expect.stringMatching(/seq 1|line 3/) });
      await harness.corrupt(store, "bad", 1, '{"seq":1,"type":"note/added","time":2,"data":{"text":"b","text":"c"}}');
      await expect(store.read("bad", registry)).rejects.toMatchObject({ code: "LOG_CORRUPT" });
    });

    // Only a relational store keeps a head apart from its rows (a JSONL file is its own length).
    const sqlIt = harness.sql === undefined ? () => undefined : it;
    sqlIt("refuses a session whose head and rows disagree, naming both, for readers (whole or streaming) and writers alike", async () => {
      const store = await fresh();
      const damaged = async (id: string, statements: (id: string) => string[], message: RegExp) => {
        const { log } = await store.create({ registry, sessionId: id });
        await log.append([storeNote.input({ text: "a" }, 1), storeNote.input({ text: "b" }, 2), storeNote.input({ text: "c" }, 3)]);
        await log.close();
        for (const statement of statements(id)) await harness.sql!(store, statement);
        await expect(store.read(id, registry)).rejects.toMatchObject({ code: "LOG_CORRUPT", message: expect.stringMatching(message) });
        await expect(store.open(id, { registry })).rejects.toMatchObject({ code: "LOG_CORRUPT", message: expect.stringMatching(message) });
        // A streaming reader (a report over a log too large to hold) refuses it too.
        const streamed = async () => {
          for await (const _ of streamSessionEvents(await store.readLines(id), registry, 2)) continue;
        };
        await expect(streamed()).rejects.toMatchObject({ code: "LOG_CORRUPT", message: expect.stringMatching(message) });
      };
      await damaged("lost-row", (id) => [`DELETE FROM dsh_events WHERE session_id = '${id}' AND seq = 2`], /^session lost-row: its head says 3 events, but its rows hold 2$/);
      await damaged("head-ahead", (id) => [`UPDATE dsh_sessions SET head = 5 WHERE id = '${id}'`], /its head says 5 events, but its rows hold 3/);
      await damaged("head-behind", (id) => [`UPDATE dsh_sessions SET head = 1 WHERE id = '${id}'`], /its head says 1 events, but its rows hold 3/);
    });

    it("lets one writer append at a time: a second writer gets a typed error and writes nothing", async () => {
      const store = await fresh();
      const first = await store.create({ registry, sessionId: "w" });
      await first.log.append(storeNote.input({ text: "one" }, 1));
      let second: EventLog | undefined;
      let refused: unknown;
      try {
        second = (await store.open("w", { registry })).log;
        await second.append(storeNote.input({ text: "two" }, 2));
        await first.log.append(storeNote.input({ text: "three" }, 3));
      } catch (error) {
        refused = error;
      }
      // Refused at open (a lock), or at the stale writer's next append (a conflict, which leaves its log read-only).
      const reason = (refused as { code?: string; cause?: unknown }).code === "LOG_SINK_FAILED" ? (refused as { cause: unknown }).cause : refused;
      expect(reason).toMatchObject({ code: expect.stringMatching(/^LOG_(LOCKED|CONFLICT)$/) });
      expect((reason as Error).message).toMatch(/\bw\b/);
      await first.log.close().catch(() => undefined);
      await second?.close().catch(() => undefined);
      const texts = (await store.read("w", registry)).log.slice().map((event) => (event.data as { text: string }).text);
      // Either writer may have won, but the session never interleaves the two.
      expect([["one"], ["one", "two"], ["one", "three"]]).toContainEqual(texts);
    });

    it("records a fork's parent and seed length, with the seed in place", async () => {
      const store = await fresh();
      const parent = await store.create({ registry, sessionId: "parent" });
      const events = await parent.log.append(awkward);
      await parent.log.close();
      const fork = await store.create({ registry, sessionId: "child", fork: { parentSessionId: "parent", seed: events.slice(0, 2) } });
      await fork.log.append(storeNote.input({ text: "own" }, 9));
      await fork.log.close();
      const read = await store.read("child", registry);
      expect(read.info.parent).toEqual({ sessionId: "parent", seedLength: 2 });
      expect(read.log.slice(0, 2).map(eventLine)).toEqual(events.slice(0, 2).map(eventLine));
      expect((await store.list()).map((session) => [session.sessionId, session.events, session.parent?.sessionId])).toEqual(
        expect.arrayContaining([["parent", 3, undefined], ["child", 3, "parent"]]),
      );
      // A copy (as `dsh copy` makes) keeps every event, the creation time and the lineage as they were.
      const copy = await store.create({ registry, sessionId: "copy", createdAt: 5, copy: { events: read.log.slice(), parent: read.info.parent } });
      await copy.log.close();
      const copied = await store.read("copy", registry);
      expect(copied.info).toEqual({ sessionId: "copy", createdAt: 5, parent: { sessionId: "parent", seedLength: 2 } });
      expect(copied.log.slice().map(eventLine)).toEqual(read.log.slice().map(eventLine));
    });

    it("lets a follower see what the writer appends, from the seq it asks for", async () => {
      const store = await fresh();
      const { log } = await store.create({ registry, sessionId: "live" });
      await log.append(storeNote.input({ text: "before" }, 1));
      const stop = new AbortController();
      const seen: LogEvent[] = [];
      const following = (async () => {
        for await (const batch of store.follow("live", { fromSeq: 0, signal: stop.signal })) {
          seen.push(...batch);
          if (seen.length >= 3) stop.abort();
        }
      })();
      await log.append(storeNote.input({ text: "during" }, 2));
      await log.append(storeNote.input({ text: "after" }, 3));
      await following;
      await log.close();
      expect(seen.map((event) => [event.seq, (event.data as { text: string }).text])).toEqual([[0, "before"], [1, "during"], [2, "after"]]);
    });

    it("loses no acknowledged event when the writer is killed (SIGKILL) mid-append, again and again", async () => {
      const store = await fresh();
      const location = harness.locationOf(store);
      let acknowledged = -1;
      for (let round = 0; round < 5; round++) {
        acknowledged = Math.max(acknowledged, await runAndKill(harness, location, "crash", 3 + round * 5, round % 3));
        const { log } = await store.read("crash", registry);
        expect(log.length).toBeGreaterThan(acknowledged);
        for (const event of log) expect(event.data).toMatchObject({ text: `event-${event.seq}` });
      }
      console.info(`${name} crash test: 5 kills, ${acknowledged + 1} events acknowledged and all present`);
    }, 120_000);
  });
}
