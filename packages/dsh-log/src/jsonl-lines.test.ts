import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionChain } from "./chain.js";
import { createJsonlLog } from "./jsonl-file.js";
import { readJsonlLines } from "./jsonl-lines.js";
import { eventLine } from "./session-lines.js";
import { noteAdded, testRegistry } from "./test-support/registry.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-lines-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const collect = async (lines: AsyncIterable<{ line: string; link: Buffer | undefined }> | Iterable<{ line: string; link: Buffer | undefined }>) => {
  const out: { line: string; link: Buffer | undefined }[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

describe("readJsonlLines", () => {
  it("gives each committed line as stored (no continuation space, the link split off) and leaves a torn commit out", async () => {
    const path = join(dir, "s.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "s", createdAt: 3, fork: { parentSessionId: "p", seed: [] } });
    // Lines longer than one read, so a line crosses a buffer boundary.
    const events = await log.append([noteAdded.input({ text: "é".repeat(150_000) }, 1), noteAdded.input({ text: "b" }, 1)]);
    await log.close();
    await appendFile(path, '{"chain":"x", "seq":2 \n');
    const stored = await readJsonlLines(path);
    expect(stored).toMatchObject({ info: { sessionId: "s", createdAt: 3, parent: { sessionId: "p", seedLength: 0 } }, chained: true });
    const lines = await collect(stored.lines);
    const chain = SessionChain.start(stored.info);
    const links = chain.extend(events.map(eventLine));
    expect(lines).toEqual(events.map((event, i) => ({ line: eventLine(event), link: links[i] })));
  });

  it("gives a version 1 file's lines without links, and a chained line whose link is damaged without one", async () => {
    const old = join(dir, "old.jsonl");
    await writeFile(old, '{"format":"dsh-log","version":1,"sessionId":"o","createdAt":1}\n{"seq":0,"type":"note/added","time":1,"data":{"text":"a"}} \n{"seq":1,"type":"note/added","time":1,"data":{"text":"b"}}\n');
    const stored = await readJsonlLines(old);
    expect(stored).toMatchObject({ info: { sessionId: "o", createdAt: 1 }, chained: false });
    expect(await collect(stored.lines)).toEqual([
      { line: '{"seq":0,"type":"note/added","time":1,"data":{"text":"a"}}', link: undefined },
      { line: '{"seq":1,"type":"note/added","time":1,"data":{"text":"b"}}', link: undefined },
    ]);
    const path = join(dir, "s.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "s", createdAt: 3 });
    await log.append(noteAdded.input({ text: "a" }, 1));
    await log.close();
    await writeFile(path, (await readFile(path, "utf8")).replace('",{"seq"', '" ,"seq"').replace(/","seq"/, '"!"seq"'));
    expect(await collect((await readJsonlLines(path)).lines)).toEqual([{ line: expect.stringMatching(/^\{"chain":/), link: undefined }]);
  });

  it("refuses a file that is not a log, and names a missing one", async () => {
    await writeFile(join(dir, "x.jsonl"), '{"hello":1}\n');
    await expect(readJsonlLines(join(dir, "x.jsonl"))).rejects.toMatchObject({ code: "LOG_UNSUPPORTED_FORMAT", message: expect.stringMatching(/does not start with a dsh-log header/) });
    await writeFile(join(dir, "y.jsonl"), "no newline");
    await expect(readJsonlLines(join(dir, "y.jsonl"))).rejects.toMatchObject({ code: "LOG_UNSUPPORTED_FORMAT" });
    await expect(readJsonlLines(join(dir, "absent.jsonl"))).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
  });
});
