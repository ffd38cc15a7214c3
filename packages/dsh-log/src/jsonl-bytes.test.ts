import { appendFile, link, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonlLog, openJsonlLog, readJsonlLog } from "./jsonl-file.js";
import { serializeEventLine } from "./jsonl-format.js";
import { streamJsonlLog } from "./jsonl-stream.js";
import { noteAdded, testRegistry } from "./test-support/registry.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-log-bytes-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const registry = testRegistry;
const HEADER = '{"format":"dsh-log","version":1,"sessionId":"s","createdAt":0}\n';
const line = (seq: number, text: string) => serializeEventLine({ seq, type: "note/added", time: 1, data: { text } });

/** A log file with exactly these bytes. */
async function file(...parts: (string | Buffer)[]): Promise<string> {
  const path = join(dir, "session.jsonl");
  await writeFile(path, Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part))));
  return path;
}

/** Opens `path` for appending and expects a refusal that leaves the file byte-identical. */
async function expectRefused(path: string, expected: { code: string; line: number; message: string | RegExp }): Promise<void> {
  const before = await readFile(path);
  const opening = openJsonlLog(path, { registry: registry() });
  await expect(opening).rejects.toMatchObject({ code: expected.code, line: expected.line });
  await expect(opening).rejects.toThrow(expected.message);
  await expect(readJsonlLog(path, registry())).rejects.toMatchObject({ code: expected.code, line: expected.line });
  expect(await readFile(path)).toEqual(before);
  // The refusal released the file: it can be locked again.
  await expect(openJsonlLog(path, { registry: registry() })).rejects.toMatchObject({ code: expected.code });
}

describe("reading a JSONL log as bytes", () => {
  it("cuts a torn tail at its byte offset, after multi-byte text and inside a multi-byte character", async () => {
    const complete = HEADER + line(0, "naïve ☃ 𝄞") + line(1, "é");
    const torn = Buffer.from(line(2, "𝄞 lost")).subarray(0, 30);
    const path = await file(complete, torn);
    const opened = await openJsonlLog(path, { registry: registry() });
    expect(opened.recovered).toEqual({ line: 4, offset: Buffer.byteLength(complete), bytes: 30 });
    await opened.log.append(noteAdded.input({ text: "after" }, 1));
    await opened.log.close();
    expect(await readFile(path, "utf8")).toBe(complete + line(2, "after"));
  });

  it("refuses invalid UTF-8 anywhere but the torn tail, naming the line, and leaves the file as it was", async () => {
    const bad = Buffer.from(line(1, "xx"));
    bad[bad.indexOf("xx")] = 0xff;
    await expectRefused(await file(HEADER, line(0, "a"), bad, line(2, "c"), '{"seq":3,"ty'), {
      code: "LOG_CORRUPT",
      line: 3,
      message: "line 3: the line is not valid UTF-8",
    });
  });

  it("refuses a key repeated in one object, which JSON.parse would silently drop", async () => {
    await expectRefused(await file(HEADER, line(0, "a"), '{"seq":1,"type":"note/added","time":1,"data":{"text":"b","text":"c"}}\n'), {
      code: "LOG_CORRUPT",
      line: 3,
      message: 'line 3: the line repeats the key "text" in one object',
    });
    await expectRefused(await file(HEADER, '{"seq":0,"seq":0,"type":"note/added","time":1,"data":{"text":"b"}}\n'), {
      code: "LOG_CORRUPT",
      line: 2,
      message: /repeats the key "seq"/,
    });
  });

  it.each([
    ["extra whitespace", '{"seq":0, "type":"note/added","time":1,"data":{"text":"a"}}'],
    ["another spelling of a string", '{"seq":0,"type":"note/added","time":1,"data":{"text":"\\u0061"}}'],
    ["another spelling of a number", '{"seq":0,"type":"note/added","time":1.0,"data":{"text":"a"}}'],
    ["the envelope keys in another order", '{"type":"note/added","seq":0,"time":1,"data":{"text":"a"}}'],
    ["a carriage return before the newline", '{"seq":0,"type":"note/added","time":1,"data":{"text":"a"}}\r'],
  ])("loads a line that means exactly what the writer would have written: %s", async (_what, text) => {
    const { log } = await readJsonlLog(await file(HEADER, `${text}\n`), registry());
    expect(log.slice()).toEqual([{ seq: 0, type: "note/added", time: 1, data: { text: "a" } }]);
  });

  it.each([
    ["-0", '{"seq":0,"type":"ui/x","time":1,"data":{"n":-0}}', "data -0 does not survive JSON"],
    ["a number too large for a double", '{"seq":0,"type":"ui/x","time":1,"data":[1e400]}', "data Infinity does not survive JSON"],
    ["-0 as the seq", '{"seq":-0,"type":"ui/x","time":1,"data":null}', "seq -0 does not survive JSON"],
    ["-0 as the time", '{"seq":0,"type":"ui/x","time":-0,"data":null}', "time -0 does not survive JSON"],
  ])("refuses a line whose values JSON cannot carry back: %s", async (_what, text, message) => {
    await expectRefused(await file(HEADER, `${text}\n`), { code: "LOG_INVALID_EVENT", line: 2, message: `line 2: ${message}` });
  });

  it("refuses a header in another form, a seq written as a string, and data nested too deeply, each naming its line", async () => {
    await expectRefused(await file('{"format":"dsh-log", "version":1,"sessionId":"s","createdAt":0}\n'), { code: "LOG_CORRUPT", line: 1, message: "line 1: the header is not in the form the writer writes" });
    await expectRefused(await file(HEADER, '{"seq":"0","type":"note/added","time":1,"data":{"text":"a"}}\n'), {
      code: "LOG_INVALID_EVENT",
      line: 2,
      message: 'line 2: seq must be 0, the next in the log, not "0"',
    });
    const deep = `{"seq":0,"type":"ui/x","time":1,"data":${"[".repeat(20_000)}${"]".repeat(20_000)}}\n`;
    await expectRefused(await file(HEADER, deep), { code: "LOG_INVALID_EVENT", line: 2, message: /nests deeper than 512 levels/ });
    const deepish = `{"seq":0,"type":"ui/x","time":1,"data":${"[".repeat(600)}${"]".repeat(600)}}\n`;
    await expectRefused(await file(HEADER, deepish), { code: "LOG_INVALID_EVENT", line: 2, message: /nests deeper than 512 levels/ });
  });

  it("reports a directory or a missing file as no log, and an empty file as having no header", async () => {
    await expect(openJsonlLog(dir, { registry: registry() })).rejects.toThrowError(expect.objectContaining({ code: "LOG_NOT_FOUND", message: `${dir} is a directory, not a log file` }));
    await expect(readJsonlLog(dir, registry())).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
    await expect(openJsonlLog(join(dir, "nope.jsonl"), { registry: registry() })).rejects.toMatchObject({ code: "LOG_NOT_FOUND" });
    await expect(readJsonlLog(await file(""), registry())).rejects.toThrowError(expect.objectContaining({ code: "LOG_CORRUPT", line: 1 }));
  });

  it("passes on any other failure to open the file as it is", async () => {
    const path = await file(HEADER);
    await expect(readJsonlLog(join(path, "inside-a-file.jsonl"), registry())).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  // The descriptors a process holds are listed in /proc on Linux, where CI runs.
  it.runIf(process.platform === "linux")("closes the file after every read, whole or streamed, of a log it loads or one it refuses", async () => {
    const good = await file(HEADER, line(0, "one"));
    const bad = join(dir, "bad.jsonl");
    await writeFile(bad, `${HEADER}not json\n`);
    const open = async () => (await readdir("/proc/self/fd")).length;
    const before = await open();
    for (let read = 0; read < 20; read++) {
      await readJsonlLog(good, registry());
      await expect(readJsonlLog(bad, registry())).rejects.toMatchObject({ code: "LOG_CORRUPT" });
      for await (const batch of streamJsonlLog(good, registry())) expect(batch).toHaveLength(1);
      await expect(
        (async () => {
          for await (const batch of streamJsonlLog(bad, registry())) expect(batch).toEqual([]);
        })(),
      ).rejects.toMatchObject({ code: "LOG_CORRUPT" });
    }
    expect(await open()).toBe(before);
  });

  it("removes the temporary name a creation killed after its link left on the log, and only such names", async () => {
    const path = join(dir, "session.jsonl");
    await (await createJsonlLog(path, { registry: registry() })).log.close();
    await writeFile(join(dir, ".session.jsonl.0123456789ab.tmp"), "half a header");
    await writeFile(join(dir, ".other.jsonl.0123456789ab.tmp"), "someone else's");
    await appendFile(join(dir, "notes.txt"), "keep");
    // A log with one name had no creation cut short: the directory is not listed, and nothing is removed.
    await (await openJsonlLog(path, { registry: registry() })).log.close();
    expect((await readdir(dir)).sort()).toEqual([".other.jsonl.0123456789ab.tmp", ".session.jsonl.0123456789ab.tmp", "notes.txt", "session.jsonl"]);
    await link(path, join(dir, ".session.jsonl.ba9876543210.tmp"));
    await (await openJsonlLog(path, { registry: registry() })).log.close();
    expect((await readdir(dir)).sort()).toEqual([".other.jsonl.0123456789ab.tmp", "notes.txt", "session.jsonl"]);
    expect((await stat(path)).nlink).toBe(1);
  });
});

describe("lines longer than one read", () => {
  it("loads a line of 600 KB between short ones, and a torn tail longer than a read", async () => {
    const long = "é".repeat(300_000);
    const path = await file(HEADER, line(0, "a"), line(1, long), line(2, "b"), `{"seq":3,"data":"${"x".repeat(700_000)}`);
    const { log, tornTail } = await readJsonlLog(path, registry());
    expect(log.slice().map((event) => (event.data as { text: string }).text.length)).toEqual([1, 300_000, 1]);
    expect((log.get(1)!.data as { text: string }).text).toBe(long);
    expect(tornTail).toMatchObject({ line: 5, bytes: 700_017 });
  });
});
