import { EventRegistry, defineEvent } from "dsh-log";
import { PostgresStore } from "dsh-store-postgres";
import { z } from "zod";

const noted = defineEvent("note/added", z.strictObject({ text: z.string() }));

export async function main(url = process.env.DATABASE_URL): Promise<boolean> {
  if (url === undefined) throw new Error("set DATABASE_URL to a PostgreSQL database, e.g. postgres://user:password@127.0.0.1:5432/dsh");
  const registry = new EventRegistry().define(noted);
  const store = await PostgresStore.connect(url); // creates the two tables on first use
  try {
    const sessionId = `demo-${Date.now()}`;
    const { log } = await store.create({ registry, sessionId });
    // Watch the session live, as another worker would.
    const stop = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const batch of store.follow(sessionId, { fromSeq: 0, signal: stop.signal })) {
        for (const event of batch) seen.push((event.data as { text: string }).text);
        if (seen.length === 2) stop.abort();
      }
    })();
    await log.append(noted.input({ text: "first" })); // committed when it resolves
    await log.append(noted.input({ text: "second" }));
    await following;
    await log.close();
    console.log(seen); // [ 'first', 'second' ]
    return (await store.read(sessionId, registry)).log.length === 2;
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
