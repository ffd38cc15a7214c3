import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LogEvent } from "./event.js";
import { createJsonlLog, readJsonlLog } from "./jsonl-file.js";
import { streamJsonlLog, type JsonlStreamEnd } from "./jsonl-stream.js";
import { appendRawEvents } from "./test-support/raw-lines.js";
import { noteAdded, noteQuota, testRegistry, turnClosed, turnOpened } from "./test-support/registry.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-stream-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every batch the stream yields, and what it returned at the end. */
async function drain(path: string, batch: number): Promise<{ batches: (readonly LogEvent[])[]; end: JsonlStreamEnd }> {
  const batches: (readonly LogEvent[])[] = [];
  const stream = streamJsonlLog(path, testRegistry(), batch);
  for (let next = await stream.next(); ; next = await stream.next()) {
    if (next.done === true) return { batches, end: next.value };
    batches.push(next.value);
  }
}

/** The error a promise rejects with. */
const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe("streamJsonlLog", () => {
  it("yields the events readJsonlLog loads, in batches of the size asked, and returns the header", async () => {
    const path = join(dir, "s.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "s", createdAt: 3 });
    // Several read buffers of the file, and many batches.
    await log.append(Array.from({ length: 3000 }, (_, i) => noteAdded.input({ text: `${i} ${"x".repeat(200)}` }, i)));
    await log.close();
    const { batches, end } = await drain(path, 1000);
    expect(batches.map((events) => events.length)).toEqual([1000, 1000, 1000]);
    expect(batches.flat()).toEqual((await readJsonlLog(path, testRegistry())).log.slice());
    expect(end).toMatchObject({ header: { sessionId: "s", createdAt: 3 }, tornTail: undefined });
  });

  it("returns a torn tail as readJsonlLog reports it, leaving the file as it is", async () => {
    const path = join(dir, "t.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "t", createdAt: 1 });
    await log.append([noteAdded.input({ text: "kept" }, 0)]);
    await log.close();
    await appendFile(path, '{"seq":1,"type":"note/ad');
    const { batches, end } = await drain(path, 10);
    expect(batches.flat()).toHaveLength(1);
    expect(end.tornTail).toEqual((await readJsonlLog(path, testRegistry())).tornTail);
    expect(end.tornTail).toBeDefined();
  });

  it("carries rule state across batches, refusing what a read refuses", async () => {
    const path = join(dir, "p.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "p", createdAt: 1 });
    await log.append([turnOpened.input({ turn: 1 }, 0), noteAdded.input({ text: "a" }, 1), turnClosed.input({ turn: 1 }, 2)]);
    await log.close();
    // Opened in the first batch, closed in the second: the pairing rule's state went along.
    expect((await drain(path, 2)).batches.map((events) => events.length)).toEqual([2, 1]);
    // Closed again, in a later batch: refused at its line, as a read refuses it.
    await appendRawEvents(path, [{ seq: 3, type: "turn/closed", time: 5, data: { turn: 1 } }]);
    const read = await refusal(readJsonlLog(path, testRegistry()));
    expect(read).toMatchObject({ code: "LOG_RULE_VIOLATION", line: 5 });
    expect(await refusal(drain(path, 2))).toMatchObject({ code: "LOG_RULE_VIOLATION", line: 5, message: (read as Error).message });
  });

  it("starts every rule from its initial state", async () => {
    // A quota of notes: its initial state is what lets the first ones through.
    const path = join(dir, "q.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "q", createdAt: 1 });
    await log.append([noteAdded.input({ text: "a" }, 0), noteAdded.input({ text: "b" }, 1), noteAdded.input({ text: "c" }, 2)]);
    await log.close();
    const stream = streamJsonlLog(path, testRegistry().rule(noteQuota(2)), 1);
    expect((await stream.next()).value).toHaveLength(1);
    expect((await stream.next()).value).toHaveLength(1);
    await expect(stream.next()).rejects.toMatchObject({ code: "LOG_RULE_VIOLATION", line: 4 });
  });

  it("meets two faults in the order a read meets them: an early rule violation before a later corrupt line", async () => {
    const path = join(dir, "two.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "two", createdAt: 1 });
    await log.append([turnOpened.input({ turn: 1 }, 0), turnClosed.input({ turn: 1 }, 1)]);
    await log.close();
    // Closed again at seq 2, then about 350 KB of notes (past the reader's first 256 KB), then a line without its chain link.
    const notes = Array.from({ length: 1200 }, (_, i) => ({ seq: 3 + i, type: "note/added", time: 3, data: { text: "x".repeat(240) } }));
    await appendRawEvents(path, [{ seq: 2, type: "turn/closed", time: 2, data: { turn: 1 } }]);
    // In commits of 100, so the reader's first 256 KB end at a commit and are admitted before the rest is parsed.
    for (let i = 0; i < notes.length; i += 100) await appendRawEvents(path, notes.slice(i, i + 100));
    await appendFile(path, `${JSON.stringify({ seq: 1203, type: "note/added", time: 4, data: { text: "y" } })}\n`);
    const read = await refusal(readJsonlLog(path, testRegistry()));
    expect(read).toMatchObject({ code: "LOG_RULE_VIOLATION", line: 4 });
    // One batch holds both faults: the stream still meets the violation first.
    expect(await refusal(drain(path, 4096))).toMatchObject({ code: "LOG_RULE_VIOLATION", line: 4, message: (read as Error).message });
  });

  it("refuses what readJsonlLog refuses, naming the same line", async () => {
    const path = join(dir, "r.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "r", createdAt: 1 });
    await log.append([turnOpened.input({ turn: 1 }, 0), noteAdded.input({ text: "a" }, 1), noteAdded.input({ text: "b" }, 2), turnClosed.input({ turn: 1 }, 3)]);
    await log.close();
    expect((await drain(path, 2)).batches.flat()).toHaveLength(4);
    await appendFile(path, `${JSON.stringify({ seq: 4, type: "turn/closed", time: 5, data: { turn: 1 } })}\n`);
    const streamed = await refusal(drain(path, 2));
    const read = await refusal(readJsonlLog(path, testRegistry()));
    // The appended line has no chain link: the same refusal, at line 6, either way.
    expect(read).toMatchObject({ code: "LOG_CORRUPT", line: 6 });
    expect(streamed).toMatchObject({ code: (read as { code: string }).code, line: 6, message: (read as Error).message });
    await expect(refusal(drain(join(dir, "missing.jsonl"), 2))).resolves.toMatchObject({ code: "LOG_NOT_FOUND" });
  });
});
