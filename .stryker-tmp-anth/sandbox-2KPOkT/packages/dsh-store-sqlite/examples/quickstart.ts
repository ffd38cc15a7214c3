import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventRegistry, defineEvent } from "dsh-log";
import { SqliteStore } from "dsh-store-sqlite";
import { z } from "zod";

const noted = defineEvent("note/added", z.strictObject({ text: z.string() }));

export async function main(): Promise<boolean> {
  const registry = new EventRegistry().define(noted);
  const store = new SqliteStore(join(await mkdtemp(join(tmpdir(), "dsh-")), "sessions.db"));
  try {
    // One writer per session: create (or open) it, append, close.
    const { log } = await store.create({ registry, sessionId: "demo" });
    await log.append([noted.input({ text: "first" }), noted.input({ text: "second" })]); // committed when it resolves
    await log.close();

    // Reading admits every stored event again, exactly as a JSONL file is read.
    const read = await store.read("demo", registry);
    console.log(read.log.slice().map((event) => (event.data as { text: string }).text)); // [ 'first', 'second' ]
    console.log((await store.list()).map((session) => `${session.sessionId}: ${session.events} events`)); // [ 'demo: 2 events' ]
    return read.log.length === 2;
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
