import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
