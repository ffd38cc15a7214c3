import { appendFile, copyFile, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, symlink, truncate, utimes, writeFile } from "node:fs/promises";
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

describe("JsonlStore.list of many sessions", () => {
  it("passes over a file that cannot be opened (gone since the directory was listed), when listing and when looking a session up", async () => {
    const store = new JsonlStore(dir);
    await (await store.create({ registry: testRegistry(), sessionId: "kept", createdAt: 1 })).log.close();
    await symlink(join(dir, "nowhere"), join(dir, "gone.jsonl"));
    expect(await store.list()).toEqual([{ sessionId: "kept", createdAt: 1, events: 0 }]);
    await expect(store.summary("missing")).rejects.toMatchObject({ code: "LOG_NOT_FOUND", message: `no session missing in ${dir}` });
  });

  it("lists each of more sessions than it counts at once, once, oldest first", async () => {
    const store = new JsonlStore(dir);
    for (let i = 0; i < 40; i++) await (await store.create({ registry: testRegistry(), sessionId: `s${i}`, createdAt: 100 - i })).log.close();
    expect((await store.list()).map((session) => session.sessionId)).toEqual(Array.from({ length: 40 }, (_, i) => `s${39 - i}`));
  });
});

describe("JsonlStore.summary", () => {
  it("counts a file again only once it changed, so asking again about a long unchanged log reads none of it", async () => {
    const store = new JsonlStore(dir);
    const { log } = await store.create({ registry: testRegistry(), sessionId: "s", createdAt: 1 });
    await log.append([noteAdded.input({ text: "one" }), noteAdded.input({ text: "two" })]);
    await log.close();
    const path = join(dir, "s.jsonl");
    await utimes(path, 1_000, 1_000);
    expect(await store.summary("s")).toEqual({ sessionId: "s", createdAt: 1, events: 2 });
    // One line fewer, with the file's size and times as they were: this store does not read it again.
    const bytes = await readFile(path, "utf8");
    await writeFile(path, bytes.replace(/\n(?=[^\n]*\n$)/, " "));
    await utimes(path, 1_000, 1_000);
    expect(await store.summary("s")).toEqual({ sessionId: "s", createdAt: 1, events: 2 });
    expect((await store.list())[0]).toEqual({ sessionId: "s", createdAt: 1, events: 2 });
    expect(await new JsonlStore(dir).summary("s")).toEqual({ sessionId: "s", createdAt: 1, events: 1 });
    const fewer = bytes.replace(/\n(?=[^\n]*\n$)/, " ");
    // Each of another modification time, another size and another file renamed over it, the rest as it was: counted again.
    await utimes(path, 2_000, 2_000);
    expect(await store.summary("s")).toEqual({ sessionId: "s", createdAt: 1, events: 1 });
    await writeFile(path, `${bytes} `);
    await utimes(path, 2_000, 2_000);
    expect(await store.summary("s")).toEqual({ sessionId: "s", createdAt: 1, events: 2 });
    await writeFile(join(dir, "replacement"), `${fewer} `);
    await utimes(join(dir, "replacement"), 2_000, 2_000);
    await rename(join(dir, "replacement"), path);
    expect(await store.summary("s")).toEqual({ sessionId: "s", createdAt: 1, events: 1 });
    await writeFile(path, bytes);
    const writer = await store.open("s", { registry: testRegistry() });
    await writer.log.append(noteAdded.input({ text: "three" }));
    await writer.log.close();
    expect(await store.summary("s")).toEqual({ sessionId: "s", createdAt: 1, events: 3 });
  });

  it("refuses a session it does not hold, and a file under its name that is not that session", async () => {
    const store = new JsonlStore(dir);
    await expect(store.summary("missing")).rejects.toMatchObject({ code: "LOG_NOT_FOUND", message: `no session missing in ${dir}` });
    await writeFile(join(dir, "notes.jsonl"), "not a log\n");
    await expect(store.summary("notes")).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
    await copyFile(join(dir, "notes.jsonl"), join(dir, "other.jsonl"));
    const { log } = await store.create({ registry: testRegistry(), sessionId: "elsewhere" });
    await log.close();
    await rename(join(dir, "elsewhere.jsonl"), join(dir, "renamed.jsonl"));
    expect(await store.summary("elsewhere")).toMatchObject({ sessionId: "elsewhere", events: 0 });
    await expect(store.summary("renamed")).rejects.toMatchObject({ code: "LOG_NOT_FOUND", message: `no session renamed in ${dir}` });
  });
});

const texts = (batch: IteratorResult<readonly LogEvent[]>) => (batch.done === true ? [] : batch.value.map((event) => (event.data as { text: string }).text));

describe("JsonlStore.list and read", () => {
  it("orders sessions by creation time, then id, and lists only visible .jsonl files", async () => {
    const store = new JsonlStore(dir);
    for (const [sessionId, createdAt] of [["a-late", 30], ["b-early", 10], ["d-tie", 20], ["c-tie", 20]] as const) {
      await (await store.create({ registry: testRegistry(), sessionId, createdAt })).log.close();
    }
    // A log under a name the store does not read: hidden, or without the .jsonl extension.
    await copyFile(join(dir, "b-early.jsonl"), join(dir, ".hidden.jsonl"));
    await copyFile(join(dir, "b-early.jsonl"), join(dir, "b-early.jsonl.bak"));
    expect((await store.list()).map((session) => session.sessionId)).toEqual(["b-early", "c-tie", "d-tie", "a-late"]);
  });

  it("keeps a fork's parent in what it lists, reads and follows", async () => {
    const store = new JsonlStore(dir);
    const parent = await store.create({ registry: testRegistry(), sessionId: "parent", createdAt: 1 });
    const [seed] = await parent.log.append(noteAdded.input({ text: "seed" }));
    await parent.log.close();
    const child = await store.create({ registry: testRegistry(), sessionId: "child", createdAt: 2, fork: { parentSessionId: "parent", seed: [seed!] } });
    await child.log.close();
    const lineage = { sessionId: "child", createdAt: 2, parent: { sessionId: "parent", seedLength: 1 } };
    expect(child.info).toEqual(lineage);
    expect((await store.list()).find((session) => session.sessionId === "child")).toEqual({ ...lineage, events: 1 });
    expect((await store.read("child", testRegistry())).info).toEqual(lineage);
    const opened = await store.open("child", { registry: testRegistry() });
    expect(opened.info).toEqual(lineage);
    await opened.log.close();
    expect((await readFile(child.location, "utf8")).split("\n")[0]).toBe(
      '{"format":"dsh-log","version":2,"sessionId":"child","createdAt":2,"parent":{"sessionId":"parent","seedLength":1}}',
    );
  });
});

/** How many of this process's descriptors are open on `path` (Linux). */
async function descriptorsOn(path: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir("/proc/self/fd")) if ((await readlink(`/proc/self/fd/${fd}`).catch(() => "")) === path) count++;
  return count;
}

describe("JsonlStore.follow", () => {
  it("delivers from the seq asked for, then each appended line once it is whole, even when a read ends inside a character", async () => {
    const store = new JsonlStore(dir);
    const { log, location } = await store.create({ registry: testRegistry(), sessionId: "live", createdAt: 1 });
    await log.append(["zero", "one", "two"].map((text) => noteAdded.input({ text })));
    await log.append(noteAdded.input({ text: "€€€" }));
    await log.close();
    const bytes = await readFile(location);
    // The file as a reader might find it mid-write: the last line stops inside the second "€".
    const cut = bytes.lastIndexOf(Buffer.from("€€€")) + 4;
    await truncate(location, cut);
    const stop = new AbortController();
    const batches = store.follow("live", { fromSeq: 1, signal: stop.signal })[Symbol.asyncIterator]();
    expect(texts(await batches.next())).toEqual(["one", "two"]);
    await appendFile(location, bytes.subarray(cut));
    expect(texts(await batches.next())).toEqual(["€€€"]);
    stop.abort();
    expect(await batches.next()).toEqual({ done: true, value: undefined });
  });

  it("delivers a commit of several lines only once its last line is on disk, never a part of it", async () => {
    const store = new JsonlStore(dir);
    const { log, location } = await store.create({ registry: testRegistry(), sessionId: "batched", createdAt: 1 });
    await log.append(noteAdded.input({ text: "alone" }));
    await log.append(["a", "b", "c"].map((text) => noteAdded.input({ text })));
    await log.close();
    const bytes = await readFile(location);
    // Mid-write: the commit's first two lines are whole, its last has not arrived.
    const cut = bytes.indexOf(Buffer.from('"c"')) - 40;
    const lastStart = bytes.lastIndexOf(0x0a, cut) + 1;
    await truncate(location, lastStart);
    const stop = new AbortController();
    const batches = store.follow("batched", { fromSeq: 0, signal: stop.signal })[Symbol.asyncIterator]();
    expect(texts(await batches.next())).toEqual(["alone"]);
    await appendFile(location, bytes.subarray(lastStart));
    expect(texts(await batches.next())).toEqual(["a", "b", "c"]);
    stop.abort();
    // The follower ends and closes its file (left suspended, its handle would be closed by the garbage collector).
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
  it("reads past a torn tail that the next writer truncated away, as the lines that replaced it", async () => {
    const store = new JsonlStore(dir);
    const created = await store.create({ registry: testRegistry(), sessionId: "crashed", createdAt: 1 });
    await created.log.append(["zero", "one"].map((text) => noteAdded.input({ text })));
    await created.log.close();
    // What a writer killed mid-write leaves: part of a line.
    await appendFile(created.location, '{"seq":2,"type":"note/added","time":1,"data":{"text":"lo');
    const stop = new AbortController();
    const batches = store.follow("crashed", { fromSeq: 0, signal: stop.signal })[Symbol.asyncIterator]();
    expect(texts(await batches.next())).toEqual(["zero", "one"]);
    const reopened = await store.open("crashed", { registry: testRegistry() });
    expect(reopened.log.length).toBe(2);
    await reopened.log.append(["after the crash", "and more"].map((text) => noteAdded.input({ text })));
    await reopened.log.close();
    expect(texts(await batches.next())).toEqual(["after the crash", "and more"]);
    stop.abort();
    await batches.return?.(undefined);
  });

  it("delivers a log larger than one read, and a line longer than one read, whole", async () => {
    const store = new JsonlStore(dir);
    const { log } = await store.create({ registry: testRegistry(), sessionId: "big", createdAt: 1 });
    await log.append(Array.from({ length: 2000 }, (_, i) => noteAdded.input({ text: `${i} ${"x".repeat(300)}` })));
    await log.append(noteAdded.input({ text: "y".repeat(700_000) }));
    await log.close();
    const stop = new AbortController();
    const seen: LogEvent[] = [];
    const sizes: number[] = [];
    for await (const batch of store.follow("big", { fromSeq: 1500, signal: stop.signal })) {
      sizes.push(batch.length);
      for (const event of batch) seen.push(event);
      if (seen.at(-1)?.seq === 2000) stop.abort();
    }
    expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 501 }, (_, i) => 1500 + i));
    expect((seen.at(-1)!.data as { text: string }).text).toHaveLength(700_000);
    // Reads that held only events before fromSeq yield nothing, not an empty batch.
    expect(sizes.every((size) => size > 0)).toBe(true);
  });

  it.runIf(process.platform === "linux")("closes the file when the follower stops", async () => {
    const store = new JsonlStore(dir);
    const { log, location } = await store.create({ registry: testRegistry(), sessionId: "closing", createdAt: 1 });
    await log.append(noteAdded.input({ text: "one" }));
    await log.close();
    const stop = new AbortController();
    for await (const batch of store.follow("closing", { fromSeq: 0, signal: stop.signal })) {
      expect(batch).toHaveLength(1);
      expect(await descriptorsOn(location)).toBe(1);
      stop.abort();
    }
    expect(await descriptorsOn(location)).toBe(0);
  });

  it("refuses a damaged line naming its line in the file", async () => {
    const store = new JsonlStore(dir);
    const { log, location } = await store.create({ registry: testRegistry(), sessionId: "damaged", createdAt: 1 });
    await log.append(noteAdded.input({ text: "fine" }));
    await log.close();
    await appendFile(location, '{"seq":1,"type":"note/added","time":1,"data":{"a":1,"a":2}}\n');
    const stop = new AbortController();
    await expect(store.follow("damaged", { fromSeq: 0, signal: stop.signal }).next()).rejects.toMatchObject({ code: "LOG_CORRUPT", line: 3 });
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
