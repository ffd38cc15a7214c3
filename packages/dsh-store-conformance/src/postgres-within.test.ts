import pg from "pg";
import { EventLog } from "dsh-log";
import { PostgresStore } from "dsh-store-postgres";
import { describe, expect, it } from "vitest";
import { testPostgres } from "./postgres-suite.js";
import { storeNote, storeRegistry, storedTexts } from "./store-registry.js";

const server = testPostgres();


/** A store, a session "s" with one note, and a client of the caller's own on the same database. */
async function setup() {
  const url = await server.createDatabase();
  const store = await PostgresStore.connect(url);
  const { log } = await store.create({ registry: storeRegistry(), sessionId: "s" });
  await log.append(storeNote.input({ text: "before" }));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("CREATE TABLE mine (note text)");
  const done = async () => {
    await client.end();
    await log.close().catch(() => undefined);
    await store.close();
  };
  return { store, log, client, done };
}

describe("PostgresStore.appendWithin", () => {
  it("commits the session's appends with the caller's own writes, and not before", async () => {
    const { store, log, client, done } = await setup();
    try {
      await client.query("BEGIN");
      await store.appendWithin(client, log, async () => {
        await log.append(storeNote.input({ text: "inside" }));
        await client.query("INSERT INTO mine VALUES ('receipt')");
      });
      expect(await storedTexts(store, "s")).toEqual(["before"]);
      await client.query("COMMIT");
      expect(await storedTexts(store, "s")).toEqual(["before", "inside"]);
      expect((await client.query("SELECT note FROM mine")).rows).toEqual([{ note: "receipt" }]);
      // Outside the scope, appends commit on their own again.
      await log.append(storeNote.input({ text: "after" }));
      expect(await storedTexts(store, "s")).toEqual(["before", "inside", "after"]);
    } finally {
      await done();
    }
  });

  it("leaves nothing behind when the caller's transaction rolls back; the session opens at its old head", async () => {
    const { store, log, client, done } = await setup();
    try {
      await client.query("BEGIN");
      await store.appendWithin(client, log, () => log.append(storeNote.input({ text: "lost" })));
      await client.query("ROLLBACK");
      expect(await storedTexts(store, "s")).toEqual(["before"]);
      const again = await store.open("s", { registry: storeRegistry() });
      await again.log.append(storeNote.input({ text: "next" }));
      await again.log.close();
      expect(await storedTexts(store, "s")).toEqual(["before", "next"]);
    } finally {
      await done();
    }
  });

  it("still fences a superseded writer inside the caller's transaction", async () => {
    const { store, log, client, done } = await setup();
    try {
      const newer = await store.open("s", { registry: storeRegistry() });
      await client.query("BEGIN");
      await expect(store.appendWithin(client, log, () => log.append(storeNote.input({ text: "stale" })))).rejects.toMatchObject({ code: "LOG_CONFLICT" });
      await client.query("ROLLBACK");
      await newer.log.close();
      expect(await storedTexts(store, "s")).toEqual(["before"]);
    } finally {
      await done();
    }
  });

  it("commits what appendApart appends at once, while the transaction stays open", async () => {
    const { store, log, client, done } = await setup();
    try {
      await client.query("BEGIN");
      await store.appendWithin(client, log, async () => {
        await store.appendApart(log, () => log.append(storeNote.input({ text: "intent" })));
        expect(await storedTexts(store, "s")).toEqual(["before", "intent"]);
        await log.append(storeNote.input({ text: "result" }));
      });
      expect(await storedTexts(store, "s")).toEqual(["before", "intent"]);
      await client.query("COMMIT");
      expect(await storedTexts(store, "s")).toEqual(["before", "intent", "result"]);
    } finally {
      await done();
    }
  });

  it("refuses a second scope on the same log, and a log this store did not open", async () => {
    const { store, log, client, done } = await setup();
    try {
      await expect(store.appendWithin(client, log, () => store.appendWithin(client, log, async () => 1))).rejects.toMatchObject({ code: "LOG_CONFLICT" });
      // The outer scope still ends cleanly, and another may start.
      await expect(store.appendWithin(client, log, async () => 2)).resolves.toBe(2);
      const foreign = new EventLog({ registry: storeRegistry() });
      await expect(store.appendWithin(client, foreign, async () => 3)).rejects.toMatchObject({ code: "LOG_CONFLICT", message: expect.stringMatching(/^the log was not opened by this store/) });
    } finally {
      await done();
    }
  });
});
