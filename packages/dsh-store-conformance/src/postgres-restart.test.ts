import pg from "pg";
import { EventRegistry, defineEvent, type LogEvent } from "dsh-log";
import { PostgresStore } from "dsh-store-postgres";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { testPostgres } from "./postgres-suite.js";

const noted = defineEvent("note/added", z.strictObject({ text: z.string() }));
const registry = () => new EventRegistry().define(noted);

const server = testPostgres();

/** What a server restart does to every client: each connection to `url`'s database is ended by the server. */
async function dropConnections(url: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query("SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    return rows.length;
  } finally {
    await admin.end();
  }
}

describe("PostgreSQL connections ended by the server (a restart)", () => {
  it("lets a writer go on appending on new connections", async () => {
    const url = await server.createDatabase();
    const store = await PostgresStore.connect(url);
    const { info, log } = await store.create({ registry: registry() });
    await log.append(noted.input({ text: "before" }));
    expect(await dropConnections(url)).toBeGreaterThan(0);
    await log.append(noted.input({ text: "after" }));
    await log.close();
    const reread = await store.read(info.sessionId, registry());
    expect(reread.log.slice().map((event) => (event.data as { text: string }).text)).toEqual(["before", "after"]);
    await store.close();
  });

  it("keeps a follower following: it listens again and catches up by seq", async () => {
    const url = await server.createDatabase();
    const store = await PostgresStore.connect(url);
    const { info, log } = await store.create({ registry: registry() });
    await log.append(noted.input({ text: "one" }));
    const controller = new AbortController();
    const seen: LogEvent[] = [];
    const following = (async () => {
      for await (const batch of store.follow(info.sessionId, { fromSeq: 0, signal: controller.signal })) {
        seen.push(...batch);
        if (seen.length === 3) controller.abort();
      }
    })();
    while (seen.length < 1) await new Promise((resolve) => setImmediate(resolve));
    expect(await dropConnections(url)).toBeGreaterThan(0);
    await log.append(noted.input({ text: "two" }));
    await log.append(noted.input({ text: "three" }));
    await following;
    expect(seen.map((event) => event.seq)).toEqual([0, 1, 2]);
    await log.close();
    await store.close();
  });
});

describe("a follower whose database is gone", () => {
  it("stops with one line saying why, instead of waiting forever", async () => {
    const url = await server.createDatabase();
    const store = await PostgresStore.connect(url, { followReconnectMs: 0 });
    const { info, log } = await store.create({ registry: registry() });
    await log.append(noted.input({ text: "one" }));
    await log.close();
    const controller = new AbortController();
    let seen = 0;
    const following = (async () => {
      for await (const batch of store.follow(info.sessionId, { fromSeq: 0, signal: controller.signal })) seen += batch.length;
    })();
    const outcome = following.then(() => undefined, (error: unknown) => error);
    while (seen < 1) await new Promise((resolve) => setImmediate(resolve));
    await store.close();
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, "/postgres") });
    await admin.connect();
    await admin.query(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
    await admin.end();
    const failure = await outcome;
    expect(failure).toMatchObject({ code: "LOG_STORE_UNAVAILABLE" });
    expect((failure as Error).message).toMatch(new RegExp(`^lost the connection to postgres://postgres:\\*+@127\\.0\\.0\\.1:\\d+/dsh_test_\\d+ while following session ${info.sessionId}, and could not open it again: .*does not exist`));
    expect((failure as Error).message).not.toContain("\n");
  });
});
