import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EventLog } from "./log.js";
import { createJsonlLog, openJsonlLog, readJsonlLog } from "./jsonl-file.js";
import { serializeEventLine, serializeHeaderLine } from "./jsonl-format.js";
import { noteAdded, testRegistry } from "./test-support/registry.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const EVENTS = 250_000;

/** A log of `count` events written line by line, as a long-running harness would have appended them. */
async function largeLog(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "dsh-large-"));
  dirs.push(dir);
  const path = join(dir, "large.jsonl");
  const out = createWriteStream(path);
  out.write(serializeHeaderLine({ format: "dsh-log", version: 1, sessionId: "large", createdAt: 0 }));
  for (let seq = 0; seq < count; seq++) {
    const line = serializeEventLine(seq % 10 === 0 ? { seq, type: "note/added", time: seq, data: { text: `note ${seq}`, tags: ["é", "☃"] } } : { seq, type: "ui/progress", time: seq, data: { seq } });
    if (!out.write(line)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return path;
}

describe("a log of more than 200,000 events", () => {
  it("loads completely with full admission, opens for appending, and takes more", async () => {
    const path = await largeLog(EVENTS);
    const { log } = await readJsonlLog(path, testRegistry());
    expect(log.length).toBe(EVENTS);
    expect(log.get(EVENTS - 10)).toEqual({ seq: EVENTS - 10, type: "note/added", time: EVENTS - 10, data: { text: `note ${EVENTS - 10}`, tags: ["é", "☃"] } });
    expect(Object.isFrozen(log.get(EVENTS - 1)!.data)).toBe(true);
    const opened = await openJsonlLog(path, { registry: testRegistry() });
    await opened.log.append(noteAdded.input({ text: "after" }));
    await opened.log.close();
    expect((await readJsonlLog(path, testRegistry())).log.length).toBe(EVENTS + 1);
  });

  it("can be appended in one batch and seeded into a fork without overflowing the stack", async () => {
    const inputs = Array.from({ length: EVENTS }, (_, i) => ({ type: "ui/progress", data: { i } }));
    const log = new EventLog({ registry: testRegistry() });
    await log.append(inputs);
    expect(log.length).toBe(EVENTS);
    const dir = await mkdtemp(join(tmpdir(), "dsh-large-"));
    dirs.push(dir);
    const fork = await createJsonlLog(join(dir, "fork.jsonl"), { registry: testRegistry(), fork: { parentSessionId: "p", seed: log.slice() } });
    expect(fork.log.length).toBe(EVENTS);
    await fork.log.close();
  });
});
