import pg from "pg";
import { PostgresStore } from "dsh-store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "./postgres-server.js";
import { storeNote, storeRegistry, storedTexts } from "./store-registry.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await server.stop();
});


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

  it("refuses a writer whose session holds more events than it expects, saying how many", async () => {
    const { store, client, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await log.append(storeNote.input({ text: "one" }));
      await client.query("UPDATE dsh_sessions SET head = 5 WHERE id = 's'");
      await expect(log.append(storeNote.input({ text: "two" }))).rejects.toMatchObject({ code: "LOG_CONFLICT", message: "session s holds 5 events, not the 1 this writer expected; this log is now read-only" });
      await client.query("UPDATE dsh_sessions SET head = 1 WHERE id = 's'");
      expect(await storedTexts(store, "s")).toEqual(["one"]);
      await log.close().catch(() => undefined);
    } finally {
      await done();
    }
  });

  it("refuses an append that waited on a newer writer's open, naming the newer writer", async () => {
    const { store, client, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      // Another process opens the session while this writer's append waits on the row: the append
      // began when the old epoch was current, and must still be refused once that open commits.
      await client.query("BEGIN");
      await client.query("UPDATE dsh_sessions SET writer_epoch = writer_epoch + 1 WHERE id = 's'");
      const append = log.append(storeNote.input({ text: "late" }));
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

  it("refuses an append to a session whose row is gone", async () => {
    const { store, client, done } = await setup();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
      await client.query("DELETE FROM dsh_sessions WHERE id = 's'");
      await expect(log.append(storeNote.input({ text: "lost" }))).rejects.toMatchObject({ code: "LOG_CONFLICT", message: "session s changed while this writer appended; it may no longer append; this log is now read-only" });
      expect((await client.query("SELECT count(*)::integer AS n FROM dsh_events")).rows[0]).toEqual({ n: 0 });
      await log.close().catch(() => undefined);
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
