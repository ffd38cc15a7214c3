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

describe("many writers on one SQLite file", () => {
  /** Another process's write transaction, held until released: what other writers of the same file wait for. */
  function holdWriteLock(path: string): () => void {
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    return () => {
      other.exec("COMMIT");
      other.close();
    };
  }

  it("waits without blocking for another writer's transaction, however long it holds the lock within the bound", async () => {
    const store = await harness.open();
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "waits" });
      const release = holdWriteLock(store.location);
      // The lock is released by a timer while the append and the creation wait: a wait that blocked
      // the event loop (SQLite's own busy wait) would never let it run, and would fail at its bound.
      setTimeout(release, 300);
      await log.append(storeNote.input({ text: "after the other writer" }, 1));
      await (await store.create({ registry: storeRegistry(), sessionId: "made-meanwhile" })).log.close();
      await log.close();
      expect((await store.read("waits", storeRegistry())).log.length).toBe(1);
      expect((await store.list()).map((session) => session.sessionId).sort()).toEqual(["made-meanwhile", "waits"]);
    } finally {
      await store.close();
    }
  });

  it("gives up past the bound with LOG_LOCKED, naming the store and what was not written, and creates no half session", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-store-sqlite-locked-"));
    dirs.push(dir);
    const path = join(dir, "sessions.db");
    const store = new SqliteStore(path, { busyTimeoutMs: 200 });
    try {
      const { log } = await store.create({ registry: storeRegistry(), sessionId: "held" });
      const release = holdWriteLock(path);
      try {
        await expect(log.append(storeNote.input({ text: "x" }, 1))).rejects.toMatchObject({
          code: "LOG_LOCKED",
          message: expect.stringMatching(new RegExp(`^the SQLite store sqlite:${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} stayed locked by other writers for \\d+ s: the append to session held was not written; this log is now read-only$`)),
        });
        await expect(store.create({ registry: storeRegistry(), sessionId: "new" })).rejects.toMatchObject({ code: "LOG_LOCKED", message: expect.stringMatching(/: the new session new was not written$/) });
        await expect(store.open("held", { registry: storeRegistry() })).rejects.toMatchObject({ code: "LOG_LOCKED", message: expect.stringMatching(/: session held's writer role was not written$/) });
      } finally {
        release();
      }
      expect((await store.list()).map((session) => session.sessionId)).toEqual(["held"]);
      await log.close().catch(() => undefined);
    } finally {
      await store.close();
    }
  });
});
