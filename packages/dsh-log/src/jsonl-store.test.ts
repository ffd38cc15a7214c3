import { appendFile, mkdir, mkdtemp, readFile, rename, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LogEvent } from "./event.js";
import { JsonlStore } from "./jsonl-store.js";
import { noteAdded, testRegistry } from "./test-support/registry.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-jsonl-store-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("JsonlStore.list", () => {
  it("counts complete event lines past the first read (a torn final line is not an event) and skips files that are not logs", async () => {
    const store = new JsonlStore(dir);
    const { log } = await store.create({ registry: testRegistry(), sessionId: "long", createdAt: 1 });
    // About 600 KB: the count spans several reads.
    for (let i = 0; i < 30; i++) await log.append(Array.from({ length: 100 }, (_, j) => noteAdded.input({ text: `${i}.${j} ${"x".repeat(180)}` })));
    await log.close();
    await appendFile(join(dir, "long.jsonl"), '{"seq":3000,"type":"note/added"');
    const short = await store.create({ registry: testRegistry(), sessionId: "short", createdAt: 2 });
    await short.log.close();
    await writeFile(join(dir, "notes.jsonl"), "not a log\n");
    await writeFile(join(dir, "empty.jsonl"), "");
    await mkdir(join(dir, "folder.jsonl"));
    expect(await store.list()).toEqual([
      { sessionId: "long", createdAt: 1, events: 3000 },
      { sessionId: "short", createdAt: 2, events: 0 },
    ]);
  });
});

describe("JsonlStore.follow", () => {
  it("delivers from the seq asked for, then each appended line once it is whole, even when a read ends inside a character", async () => {
    const store = new JsonlStore(dir);
    const { log, location } = await store.create({ registry: testRegistry(), sessionId: "live", createdAt: 1 });
    await log.append(["zero", "one", "two", "€€€"].map((text) => noteAdded.input({ text })));
    await log.close();
    const bytes = await readFile(location);
    // The file as a reader might find it mid-write: the last line stops inside the second "€".
    const cut = bytes.lastIndexOf(Buffer.from("€€€")) + 4;
    await truncate(location, cut);
    const stop = new AbortController();
    const batches = store.follow("live", { fromSeq: 1, signal: stop.signal })[Symbol.asyncIterator]();
    const texts = (batch: IteratorResult<readonly LogEvent[]>) => (batch.done === true ? [] : batch.value.map((event) => (event.data as { text: string }).text));
    expect(texts(await batches.next())).toEqual(["one", "two"]);
    await appendFile(location, bytes.subarray(cut));
    expect(texts(await batches.next())).toEqual(["€€€"]);
    stop.abort();
    expect(await batches.next()).toEqual({ done: true, value: undefined });
  });

  it("finds a session by the id in its header under another file name, and says which one is missing", async () => {
    const store = new JsonlStore(dir);
    const { log, location } = await store.create({ registry: testRegistry(), sessionId: "named", createdAt: 1 });
    await log.append(noteAdded.input({ text: "kept" }));
    await log.close();
    await rename(location, join(dir, "renamed.jsonl"));
    const stop = new AbortController();
    for await (const batch of store.follow("named", { fromSeq: 0, signal: stop.signal })) {
      expect(batch.map((event) => event.data)).toEqual([{ text: "kept" }]);
      stop.abort();
    }
    expect(stop.signal.aborted).toBe(true);
    await expect(store.follow("absent", { fromSeq: 0, signal: stop.signal }).next()).rejects.toMatchObject({ code: "LOG_NOT_FOUND", message: `no session absent in ${dir}` });
  });

  it("refuses to follow a file under a session's name that is not a log", async () => {
    await writeFile(join(dir, "plain.jsonl"), "just text\n");
    const stop = new AbortController();
    await expect(new JsonlStore(dir).follow("plain", { fromSeq: 0, signal: stop.signal }).next()).rejects.toMatchObject({ code: "LOG_CORRUPT" });
  });
});

describe("JsonlStore over a directory that does not exist yet", () => {
  it("lists nothing and creates the directory on the first session", async () => {
    const store = new JsonlStore(join(dir, "later"));
    expect(await store.list()).toEqual([]);
    await expect(store.read("any", testRegistry())).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
    const { log } = await store.create({ registry: testRegistry(), sessionId: "first", createdAt: 3 });
    await log.close();
    expect(await store.list()).toEqual([{ sessionId: "first", createdAt: 3, events: 0 }]);
  });
});
