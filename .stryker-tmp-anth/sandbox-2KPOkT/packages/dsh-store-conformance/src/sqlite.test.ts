import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "dsh-store-sqlite";
import { afterAll } from "vitest";
import { describeStoreConformance, factoryModule } from "./store-conformance.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describeStoreConformance("SQLite", {
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
});
