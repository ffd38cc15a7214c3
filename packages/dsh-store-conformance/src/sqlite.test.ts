import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "dsh-store-sqlite";
import { verifyLines } from "dsh-log";
import { afterAll, describe, expect, it } from "vitest";
import { storeNote, storeRegistry } from "./store-registry.js";
import { describeChainConformance } from "./store-chain-conformance.js";
import { describeStoreConformance, factoryModule, type StoreHarness } from "./store-conformance.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const harness: StoreHarness & { sql: NonNullable<StoreHarness["sql"]> } = {
  async open() {
    const dir = await mkdtemp(join(tmpdir(), "dsh-store-sqlite-"));
    dirs.push(dir);
    return new SqliteStore(join(dir, "sessions.db"));
  },
  async corrupt(store, sessionId, seq, line) {
    const db = new Database(store.location);
    try {
      db.prepare("UPDATE dsh_events SET line = ? WHERE session_id = ? AND seq = ?").run(line, sessionId, seq);
    } finally {
      db.close();
    }
  },
  async sql(store, statement) {
    const db = new Database(store.location);
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
  },
  factory: factoryModule("sqlite"),
  locationOf: (store) => store.location,
};

describeStoreConformance("SQLite", harness);
describeChainConformance("SQLite", {
  ...harness,
  dropTail: (store, id, keep) => harness.sql(store, `DELETE FROM dsh_events WHERE session_id = '${id}' AND seq >= ${keep}; UPDATE dsh_sessions SET head = ${keep} WHERE id = '${id}'`),
  unchain: (store, id) => harness.sql(store, `UPDATE dsh_sessions SET chained = 0 WHERE id = '${id}'; UPDATE dsh_events SET chain = NULL WHERE session_id = '${id}'`),
});

describe("a database written before hash chains (schema version 1)", () => {
  it("gains the chain columns on open; its sessions load, append and verify as unchained, new ones are chained", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-store-sqlite-v1-"));
    dirs.push(dir);
    const path = join(dir, "old.db");
    const db = new Database(path);
    db.exec(`CREATE TABLE dsh_sessions (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, parent_id TEXT, seed_length INTEGER, head INTEGER NOT NULL, writer_epoch INTEGER NOT NULL DEFAULT 0) STRICT;
      CREATE TABLE dsh_events (session_id TEXT NOT NULL REFERENCES dsh_sessions (id), seq INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (session_id, seq)) STRICT, WITHOUT ROWID;
      INSERT INTO dsh_sessions VALUES ('old', 1, NULL, NULL, 1, 1);
      INSERT INTO dsh_events VALUES ('old', 0, '{"seq":0,"type":"note/added","time":1,"data":{"text":"kept"}}');
      PRAGMA user_version = 1;`);
    db.close();
    const store = new SqliteStore(path);
    try {
      expect((await store.read("old", storeRegistry())).log.length).toBe(1);
      const opened = await store.open("old", { registry: storeRegistry() });
      await opened.log.append(storeNote.input({ text: "later" }, 2));
      await opened.log.close();
      expect(await verifyLines(await store.readLines("old"))).toMatchObject({ status: "unchained", events: 2 });
      await (await store.create({ registry: storeRegistry(), sessionId: "new" })).log.close();
      expect(await verifyLines(await store.readLines("new"))).toMatchObject({ status: "intact", events: 0 });
    } finally {
      await store.close();
    }
    const check = new Database(path);
    expect(check.pragma("user_version", { simple: true })).toBe(2);
    check.close();
  });
});
