import pg from "pg";
import { verifyLines } from "dsh-log";
import { PostgresStore } from "dsh-store-postgres";
import { testPostgres } from "./postgres-suite.js";
import { captureLog } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { describeChainConformance } from "./store-chain-conformance.js";
import { describeStoreConformance, factoryModule, type StoreHarness } from "./store-conformance.js";
import { storeNote, storeRegistry } from "./store-registry.js";

const server = testPostgres();

const urls = new WeakMap<object, string>();

const harness: StoreHarness & { sql: NonNullable<StoreHarness["sql"]> } = {
  async open() {
    const url = await server.createDatabase();
    const store = await PostgresStore.connect(url);
    urls.set(store, url);
    return store;
  },
  async corrupt(store, sessionId, seq, line) {
    const client = new pg.Client({ connectionString: urls.get(store)! });
    await client.connect();
    try {
      await client.query("UPDATE dsh_events SET line = $1 WHERE session_id = $2 AND seq = $3", [line, sessionId, seq]);
    } finally {
      await client.end();
    }
  },
  async sql(store, statement) {
    const client = new pg.Client({ connectionString: urls.get(store)! });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  },
  factory: factoryModule("postgres"),
  locationOf: (store) => urls.get(store)!,
};

describeStoreConformance("PostgreSQL", harness);
describeChainConformance("PostgreSQL", {
  ...harness,
  dropTail: (store, id, keep) => harness.sql(store, `DELETE FROM dsh_events WHERE session_id = '${id}' AND seq >= ${keep}; UPDATE dsh_sessions SET head = ${keep} WHERE id = '${id}'`),
  unchain: (store, id) => harness.sql(store, `UPDATE dsh_sessions SET chained = false WHERE id = '${id}'; UPDATE dsh_events SET chain = NULL WHERE session_id = '${id}'`),
});

describe("the dsh-store-postgres README example", () => {
  it("runs against the test server", async () => {
    const { main } = await import("../../dsh-store-postgres/examples/quickstart.js");
    const { result, lines } = await captureLog(async () => main(await server.createDatabase()));
    expect(result).toBe(true);
    expect(lines).toEqual(['["first","second"]']);
  });
});

describe("PostgreSQL without prepared statements (behind a pooler that cannot keep them)", () => {
  it("appends, fences a superseded writer and reads back the same lines", async () => {
    const url = await server.createDatabase();
    const store = await PostgresStore.connect(url, { preparedStatements: false, maxConnections: 2 });
    try {
      const first = await store.create({ registry: storeRegistry(), sessionId: "p1" });
      await Promise.all([first.log.append(storeNote.input({ text: "a" })), first.log.append(storeNote.input({ text: "b" }))]);
      const second = await store.open("p1", { registry: storeRegistry() });
      await second.log.append(storeNote.input({ text: "c" }));
      await expect(first.log.append(storeNote.input({ text: "stale" }))).rejects.toMatchObject({ code: "LOG_CONFLICT" });
      await second.log.close();
      const read = await store.read("p1", storeRegistry());
      expect(read.log.slice().map((event) => (event.data as { text: string }).text)).toEqual(["a", "b", "c"]);
    } finally {
      await store.close();
    }
  });
});

describe("a PostgreSQL database written before hash chains (schema version 1)", () => {
  it("gains the chain columns on connect; its sessions load, append and verify as unchained, new ones are chained", async () => {
    const url = await server.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE TABLE dsh_schema (version integer NOT NULL);
        CREATE TABLE dsh_sessions (id text PRIMARY KEY, created_at bigint NOT NULL, parent_id text, seed_length integer, head integer NOT NULL, writer_epoch integer NOT NULL DEFAULT 0);
        CREATE TABLE dsh_events (session_id text NOT NULL REFERENCES dsh_sessions (id), seq integer NOT NULL, line text NOT NULL, PRIMARY KEY (session_id, seq));
        INSERT INTO dsh_schema (version) VALUES (1);
        INSERT INTO dsh_sessions VALUES ('old', 1, NULL, NULL, 1, 1);
        INSERT INTO dsh_events VALUES ('old', 0, '{"seq":0,"type":"note/added","time":1,"data":{"text":"kept"}}');`);
    } finally {
      await client.end();
    }
    const store = await PostgresStore.connect(url);
    try {
      const opened = await store.open("old", { registry: storeRegistry() });
      await opened.log.append(storeNote.input({ text: "later" }, 2));
      await opened.log.close();
      expect(await verifyLines(await store.readLines("old"))).toMatchObject({ status: "unchained", events: 2 });
      await (await store.create({ registry: storeRegistry(), sessionId: "new" })).log.close();
      expect(await verifyLines(await store.readLines("new"))).toMatchObject({ status: "intact", events: 0 });
    } finally {
      await store.close();
    }
  });
});
