import pg from "pg";
import { PostgresStore } from "dsh-store-postgres";
import { describe, expect, it } from "vitest";
import { testPostgres } from "./postgres-suite.js";
import { storeNote, storeRegistry, storedTexts } from "./store-registry.js";

const server = testPostgres();


/** A store on a new database, and a client of its own on the same database. */
async function setup() {
  const url = await server.createDatabase();
  const store = await PostgresStore.connect(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const done = async () => {
    await client.end();
    await store.close();
  };
  return { store, client, done };
}

describe("PostgreSQL commits", () => {
  it("commits the appends of many sessions together and refuses only the superseded writer's", async () => {
    const { store, done } = await setup();
    try {
      const ids = ["a", "b", "c"];
      const logs = await Promise.all(ids.map(async (sessionId) => (await store.create({ registry: storeRegistry(), sessionId })).log));
      const newer = await store.open("b", { registry: storeRegistry() });
      // Appended in the same turn, so they reach the database as one group commit.
      const outcomes = await Promise.allSettled(logs.map((log, i) => log.append(storeNote.input({ text: `to ${ids[i]!}` }))));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "LOG_CONFLICT", message: "session b was opened by another writer; this one may no longer append; this log is now read-only" });
      expect(await Promise.all(ids.map((id) => storedTexts(store, id)))).toEqual([["to a"], [], ["to c"]]);
      await newer.log.append(storeNote.input({ text: "newer" }));
      expect(await storedTexts(store, "b")).toEqual(["newer"]);
      for (const log of [...logs, newer.log]) await log.close().catch(() => undefined);
    } finally {
      await done();
    }
  });

  // An append of one event and one of several are committed by different statements: both are held to the same checks.
  const notes = (size: number, text: string) => Array.from({ length: size }, (_, i) => storeNote.input({ text: `${text} ${i}` }));

  it.each([1, 3])("refuses a writer whose session holds more events than it expects, saying how many (%i per append)", async (size) => {
    const { store, client, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await log.append(notes(size, "one"));
      await client.query("UPDATE dsh_sessions SET head = $1 WHERE id = 's'", [size + 4]);
      await expect(log.append(notes(size, "two"))).rejects.toMatchObject({
        code: "LOG_CONFLICT",
        message: `session s holds ${size + 4} events, not the ${size} this writer expected; this log is now read-only`,
      });
      await client.query("UPDATE dsh_sessions SET head = $1 WHERE id = 's'", [size]);
      expect(await storedTexts(store, "s")).toEqual(notes(size, "one").map((note) => note.data.text));
      await log.close().catch(() => undefined);
    } finally {
      await done();
    }
  });

  it.each([1, 3])("refuses an append that waited on a newer writer's open, naming the newer writer (%i per append)", async (size) => {
    const { store, client, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      // Another process opens the session while this writer's append waits on the row: the append
      // began when the old epoch was current, and must still be refused once that open commits.
      await client.query("BEGIN");
      await client.query("UPDATE dsh_sessions SET writer_epoch = writer_epoch + 1 WHERE id = 's'");
      const append = log.append(notes(size, "late"));
      const refused = expect(append).rejects.toMatchObject({ code: "LOG_CONFLICT", message: "session s was opened by another writer; this one may no longer append; this log is now read-only" });
      await waitForLockWaiter(client);
      await client.query("COMMIT");
      await refused;
      expect(await storedTexts(store, "s")).toEqual([]);
      await log.close().catch(() => undefined);
    } finally {
      await done();
    }
  });

  it.each([1, 3])("refuses an append to a session whose row is gone (%i per append)", async (size) => {
    const { store, client, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await client.query("DELETE FROM dsh_sessions WHERE id = 's'");
      await expect(log.append(notes(size, "lost"))).rejects.toMatchObject({ code: "LOG_CONFLICT", message: "session s changed while this writer appended; it may no longer append; this log is now read-only" });
      expect((await client.query("SELECT count(*)::integer AS n FROM dsh_events")).rows[0]).toEqual({ n: 0 });
      await log.close().catch(() => undefined);
    } finally {
      await done();
    }
  });

  it.each([1, 3])("stores the events, their links and the head of an accepted append (%i per append)", async (size) => {
    const { store, client, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await log.append(notes(size, "a"));
      await log.append(notes(size, "b"));
      const rows = (await client.query("SELECT seq, octet_length(chain) AS link FROM dsh_events WHERE session_id = 's' ORDER BY seq")).rows;
      expect(rows).toEqual(Array.from({ length: 2 * size }, (_, seq) => ({ seq, link: 32 })));
      expect((await client.query("SELECT head FROM dsh_sessions WHERE id = 's'")).rows[0]).toEqual({ head: 2 * size });
      expect(await storedTexts(store, "s")).toEqual([...notes(size, "a"), ...notes(size, "b")].map((note) => note.data.text));
      await log.close();
    } finally {
      await done();
    }
  });
});

/** Resolves once some other connection of the database waits on a lock. */
async function waitForLockWaiter(client: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ n: number }>("SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
