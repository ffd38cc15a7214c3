import { PostgresStore } from "dsh-store-postgres";
import { describe, expect, it } from "vitest";
import { startFaultyProxy, type FaultyProxy } from "./faulty-proxy.js";
import { testPostgres } from "./postgres-suite.js";
import { storeNote, storeRegistry, storedTexts } from "./store-registry.js";

const server = testPostgres();

/** A store reaching a new database through a {@link FaultyProxy}, and one reaching it directly to check what is stored. */
async function setup() {
  const url = await server.createDatabase();
  const proxy = await startFaultyProxy(url);
  const store = await PostgresStore.connect(proxy.url, { maxConnections: 3 });
  const direct = await PostgresStore.connect(url);
  const done = async () => {
    await store.close();
    await direct.close();
    await proxy.close();
  };
  return { proxy, store, direct, done };
}

const notes = (size: number, text: string) => Array.from({ length: size }, (_, i) => storeNote.input({ text: `${text} ${i}` }));
const texts = (size: number, text: string) => Array.from({ length: size }, (_, i) => `${text} ${i}`);

// One event and several are committed by different statements: both are settled the same way.
describe.each([1, 3])("a PostgreSQL append whose connection is lost (%i per append)", (size) => {
  it("is sent again when its statement never reached the server, and stored once", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await log.append(notes(size, "before"));
      proxy.dropNextStatement();
      await log.append(notes(size, "lost"));
      await log.append(notes(size, "after"));
      expect(await storedTexts(direct, "s")).toEqual([...texts(size, "before"), ...texts(size, "lost"), ...texts(size, "after")]);
      await log.close();
    } finally {
      await done();
    }
  });

  it("resolves when its statement committed but the reply was lost, and is not stored twice", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      proxy.loseNextReply();
      await log.append(notes(size, "lost reply"));
      await log.append(notes(size, "after"));
      expect(await storedTexts(direct, "s")).toEqual([...texts(size, "lost reply"), ...texts(size, "after")]);
      await log.close();
    } finally {
      await done();
    }
  });

  it("is refused, not sent again, when a newer writer took the session and the reply was lost", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      const newer = await direct.open("s", { registry: storeRegistry() });
      proxy.loseNextReply();
      await expect(log.append(notes(size, "stale"))).rejects.toMatchObject({ code: "LOG_CONFLICT", message: "session s was opened by another writer; this one may no longer append; this log is now read-only" });
      expect(await storedTexts(direct, "s")).toEqual([]);
      await newer.log.close();
    } finally {
      await done();
    }
  });
});

describe("PostgreSQL statements whose connection is lost", () => {
  it("settles each session of a group commit whose reply was lost", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      const logs = await Promise.all(["a", "b"].map(async (sessionId) => (await store.create({ registry: storeRegistry(), sessionId })).log));
      proxy.loseNextReply();
      await Promise.all(logs.map((log, i) => log.append(storeNote.input({ text: `to ${i}` }))));
      expect([await storedTexts(direct, "a"), await storedTexts(direct, "b")]).toEqual([["to 0"], ["to 1"]]);
      for (const log of logs) await log.close();
    } finally {
      await done();
    }
  });

  it("reads, lists, opens and creates on another connection when the one they get is lost", async () => {
    const { proxy, store, done } = await setup();
    try {
      const created = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await created.log.append(storeNote.input({ text: "one" }));
      await created.log.close();
      proxy.dropNextStatement();
      expect(await storedTexts(store, "s")).toEqual(["one"]);
      proxy.dropNextStatement();
      expect((await store.list()).map((session) => [session.sessionId, session.events])).toEqual([["s", 1]]);
      proxy.dropNextStatement();
      const opened = await store.open("s", { registry: storeRegistry() });
      await opened.log.append(storeNote.input({ text: "two" }));
      await opened.log.close();
      proxy.dropNextStatement();
      await (await store.create({ registry: storeRegistry(), sessionId: "t" })).log.close();
      expect([await storedTexts(store, "s"), await storedTexts(store, "t")]).toEqual([["one", "two"], []]);
    } finally {
      await done();
    }
  });

  it("creates a session again on another connection when a statement before its commit is lost, and stores it once", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      const parent = await store.create({ registry: storeRegistry(), sessionId: "parent" });
      const [first] = await parent.log.append(storeNote.input({ text: "seed" }));
      await parent.log.close();
      // BEGIN goes through; the insert of the session's row never arrives.
      proxy.passNext(1);
      proxy.dropNextStatement();
      const fork = await store.create({ registry: storeRegistry(), sessionId: "fork", fork: { parentSessionId: "parent", seed: [first!] } });
      await fork.log.append(storeNote.input({ text: "own" }));
      await fork.log.close();
      expect(await storedTexts(direct, "fork")).toEqual(["seed", "own"]);
      expect((await direct.list()).map((session) => session.sessionId)).toEqual(["parent", "fork"]);
    } finally {
      await done();
    }
  });

  it("says it cannot tell whether a session was created when the reply to its commit is lost", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      // BEGIN and the insert of the session's row go through; the commit runs, its reply is lost.
      proxy.passNext(2);
      proxy.loseNextReply();
      const failure = await store.create({ registry: storeRegistry(), sessionId: "s" }).then(() => undefined, (error: unknown) => error);
      expect(failure).toMatchObject({ code: "LOG_STORE_UNAVAILABLE", message: `lost the connection while committing session s to ${store.location}: it may or may not have been committed` });
      expect(await direct.summary("s")).toMatchObject({ sessionId: "s", events: 0 });
    } finally {
      await done();
    }
  });

  it("keeps a follower following when its catch-up query meets lost connections", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      const { log } = await direct.create({ registry: storeRegistry(), sessionId: "s" });
      await log.append(storeNote.input({ text: "one" }));
      const controller = new AbortController();
      const seen: string[] = [];
      const following = (async () => {
        for await (const batch of store.follow("s", { fromSeq: 0, signal: controller.signal })) {
          seen.push(...batch.map((event) => (event.data as { text: string }).text));
          if (seen.length === 2) controller.abort();
        }
      })();
      while (seen.length < 1) await new Promise((resolve) => setImmediate(resolve));
      proxy.dropNextStatement(2);
      await log.append(storeNote.input({ text: "two" }));
      await following;
      expect(seen).toEqual(["one", "two"]);
      await log.close();
    } finally {
      await done();
    }
  });

  it("gives up, saying why, when the server stays out of reach", async () => {
    const { proxy, store, direct, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await proxy.close();
      await expect(log.append(storeNote.input({ text: "unreachable" }))).rejects.toMatchObject({ code: "LOG_SINK_FAILED", cause: { code: "ECONNREFUSED" } });
      expect(await storedTexts(direct, "s")).toEqual([]);
    } finally {
      await done();
    }
  });
});
