import pg from "pg";
import { PostgresStore } from "dsh-store-postgres";
import { startTestPostgres, type TestPostgres } from "./postgres-server.js";
import { captureLog } from "dsh-testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStoreConformance, factoryModule } from "./store-conformance.js";
import { storeNote, storeRegistry } from "./store-registry.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await server.stop();
});

const urls = new WeakMap<object, string>();

describeStoreConformance("PostgreSQL", {
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
