import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonlLog, openJsonlLog, readJsonlLog } from "./jsonl-file.js";
import { SessionChain } from "./chain.js";
import { linkedLine, serializeEventLine } from "./jsonl-format.js";
import { readJsonlLines } from "./jsonl-lines.js";
import { verifyLines } from "./verify.js";
import { appendRawEvents } from "./test-support/raw-lines.js";
import { noteAdded, testRegistry, validInputs } from "./test-support/registry.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-log-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
const freshPath = () => join(dir, `session-${counter++}.jsonl`);

describe("JSONL persistence", () => {
  it("load(save(x)) = x for random logs appended in random batches, torn tails included", async () => {
    await fc.assert(
      fc.asyncProperty(validInputs, fc.nat(5), fc.option(fc.nat()), async (inputs, batchSize, tear) => {
        const path = freshPath();
        const created = await createJsonlLog(path, { registry: testRegistry(), sessionId: "s" });
        for (let i = 0; i < inputs.length; i += batchSize + 1) {
          await created.log.append(inputs.slice(i, i + batchSize + 1));
        }
        const saved = created.log.slice();
        await created.log.close();
        const intact = await readFile(path);

        let torn: string | undefined;
        if (tear !== null) {
          const line = serializeEventLine({ seq: saved.length, type: "note/added", time: 1, data: { text: "lost" } });
          torn = line.slice(0, 1 + (tear % (line.length - 1)));
          await appendFile(path, torn);
        }

        const reopened = await openJsonlLog(path, { registry: testRegistry() });
        expect(reopened.header.sessionId).toBe("s");
        expect(reopened.log.slice()).toEqual(saved);
        expect(reopened.recovered?.bytes).toBe(torn === undefined ? undefined : Buffer.byteLength(torn));
        expect(await readFile(path)).toEqual(intact);
        await reopened.log.append(noteAdded.input({ text: "after recovery" }, 3));
        await reopened.log.close();
        const reread = await readJsonlLog(path, testRegistry());
        expect(reread.log.slice()).toEqual([...saved, { seq: saved.length, type: "note/added", time: 3, data: { text: "after recovery" } }]);
        expect(reread.tornTail).toBeUndefined();
        // The writer that reopened the file went on with the chain where the last whole commit left it.
        expect(await verifyLines(await readJsonlLines(path))).toMatchObject({ status: "intact", events: saved.length + 1 });
      }),
      { numRuns: 40 },
    );
  });

  it("takes a commit as all or nothing: a crash that kept some of its lines, whole, drops them all", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 6 }), fc.nat(), fc.boolean(), async (size, keep, cutMidLine) => {
        const path = freshPath();
        const created = await createJsonlLog(path, { registry: testRegistry(), sessionId: "s" });
        await created.log.append(noteAdded.input({ text: "before" }, 1));
        const intact = await readFile(path);
        await created.log.append(Array.from({ length: size }, (_, i) => noteAdded.input({ text: `batch ${i}` }, 2)));
        await created.log.close();
        // The crash kept `kept` whole lines of the commit (never its last), and maybe part of the next one.
        const whole = await readFile(path);
        const lines = whole.subarray(intact.length).toString("utf8").split(/(?<=\n)/);
        const kept = 1 + (keep % (size - 1));
        let torn = lines.slice(0, kept).join("");
        if (cutMidLine) torn += lines[kept]!.slice(0, 5);
        await writeFile(path, Buffer.concat([intact, Buffer.from(torn)]));

        const read = await readJsonlLog(path, testRegistry());
        expect(read.log.slice().map((event) => (event.data as { text: string }).text)).toEqual(["before"]);
        expect(read.tornTail).toEqual({ line: 3, offset: intact.length, bytes: Buffer.byteLength(torn) });
        const reopened = await openJsonlLog(path, { registry: testRegistry() });
        expect(reopened.recovered?.offset).toBe(intact.length);
        expect(await readFile(path)).toEqual(intact);
        await reopened.log.close();
      }),
      { numRuns: 30 },
    );
  });

  it("ends every line of a commit but its last in a space, which readers of the events ignore", async () => {
    const path = freshPath();
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "abc", createdAt: 5 });
    await log.append([noteAdded.input({ text: "a" }, 1), noteAdded.input({ text: "b" }, 1)]);
    await log.append(noteAdded.input({ text: "c" }, 1));
    await log.close();
    const lines = ['{"seq":0,"type":"note/added","time":1,"data":{"text":"a"}}', '{"seq":1,"type":"note/added","time":1,"data":{"text":"b"}}', '{"seq":2,"type":"note/added","time":1,"data":{"text":"c"}}'];
    const links = SessionChain.start({ sessionId: "abc", createdAt: 5 }).extend(lines);
    expect((await readFile(path, "utf8")).split("\n").slice(1)).toEqual([`${linkedLine(lines[0]!, links[0]!)} `, linkedLine(lines[1]!, links[1]!), linkedLine(lines[2]!, links[2]!), ""]);
    expect((await readJsonlLog(path, testRegistry())).log.slice().map((event) => event.data)).toEqual([{ text: "a" }, { text: "b" }, { text: "c" }]);
  });

  it("writes the header first and keeps data key order byte for byte", async () => {
    const path = freshPath();
    const { log } = await createJsonlLog(path, { registry: testRegistry(), sessionId: "abc", createdAt: 5 });
    await log.append({ type: "ui/x", data: { z: 1, a: { y: 2, b: 3 } }, time: 9 });
    await log.close();
    const line = '{"seq":0,"type":"ui/x","time":9,"data":{"z":1,"a":{"y":2,"b":3}}}';
    const [link] = SessionChain.start({ sessionId: "abc", createdAt: 5 }).extend([line]);
    expect(await readFile(path, "utf8")).toBe(`{"format":"dsh-log","version":2,"sessionId":"abc","createdAt":5}\n{"chain":"${link!.toString("base64url")}",${line.slice(1)}\n`);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("records fork lineage and seeds the new log with the parent's prefix", async () => {
    const parentPath = freshPath();
    const parent = await createJsonlLog(parentPath, { registry: testRegistry(), sessionId: "parent" });
    await parent.log.append([noteAdded.input({ text: "one" }), noteAdded.input({ text: "two" })]);
    await parent.log.close();
    const seed = parent.log.slice(0, 1);
    const child = await createJsonlLog(freshPath(), {
      registry: testRegistry(),
      fork: { parentSessionId: "parent", seed },
    });
    expect(child.header.parent).toEqual({ sessionId: "parent", seedLength: 1 });
    expect(child.log.slice()).toEqual(seed);
    await child.log.close();
    const reread = await readJsonlLog(child.path, testRegistry());
    expect(reread.log.slice()).toEqual(seed);
  });

  it("refuses to overwrite an existing log", async () => {
    const path = freshPath();
    await (await createJsonlLog(path, { registry: testRegistry() })).log.close();
    await expect(createJsonlLog(path, { registry: testRegistry() })).rejects.toMatchObject({ code: "LOG_EXISTS", name: "LogError", message: `${path} already exists` });
  });

  it("refuses to create a session that is both a fork and a copy", async () => {
    const both = { fork: { parentSessionId: "p", seed: [] }, copy: { events: [], parent: undefined } };
    await expect(createJsonlLog(freshPath(), { registry: testRegistry(), ...both })).rejects.toMatchObject({
      code: "LOG_INVALID_EVENT",
      message: "a new session is either a fork or a copy, not both",
    });
  });

  it("names the line of corruption anywhere but the torn tail", async () => {
    const path = freshPath();
    const { log } = await createJsonlLog(path, { registry: testRegistry() });
    await log.append([noteAdded.input({ text: "a" }), noteAdded.input({ text: "b" }), noteAdded.input({ text: "c" })]);
    await log.close();
    const lines = (await readFile(path, "utf8")).split("\n");
    lines[2] = lines[2]!.slice(0, -10);
    await writeFile(path, lines.join("\n"));
    await expect(openJsonlLog(path, { registry: testRegistry() })).rejects.toMatchObject({ code: "LOG_CORRUPT", line: 3 });
    await expect(readJsonlLog(path, testRegistry())).rejects.toThrow(/^line 3: unreadable JSON/);
  });

  it("names the line of an event that fails admission on load", async () => {
    const path = freshPath();
    const { log } = await createJsonlLog(path, { registry: testRegistry() });
    await log.append(noteAdded.input({ text: "a" }));
    await log.close();
    await appendRawEvents(path, [{ seq: 1, type: "note/versioned", time: 1, data: { version: 1 } }]);
    await expect(readJsonlLog(path, testRegistry())).rejects.toMatchObject({ code: "LOG_LEGACY_EVENT", line: 3 });
    await writeFile(path, (await readFile(path, "utf8")).replace(/.*note\/versioned.*\n/, ""));
    await appendRawEvents(path, [{ seq: 1, type: "note/added", time: 1, data: { text: 1 } }]);
    const rejection = readJsonlLog(path, testRegistry());
    await expect(rejection).rejects.toMatchObject({ code: "LOG_INVALID_EVENT", line: 3 });
    await expect(rejection).rejects.toThrow(/note\/added/);
  });

  it("refuses a foreign format version and a file that is not a dsh log", async () => {
    const path = freshPath();
    await writeFile(path, '{"format":"dsh-log","version":3,"sessionId":"s","createdAt":0}\n');
    await expect(readJsonlLog(path, testRegistry())).rejects.toThrow(/version 3 is not supported \(this reader knows versions 1 and 2\)/);
    await writeFile(path, '{"hello":"world"}\n');
    await expect(readJsonlLog(path, testRegistry())).rejects.toMatchObject({ code: "LOG_UNSUPPORTED_FORMAT" });
  });

  it("reports a missing file as LOG_NOT_FOUND", async () => {
    const absent = join(dir, "absent.jsonl");
    await expect(readJsonlLog(absent, testRegistry())).rejects.toMatchObject({ code: "LOG_NOT_FOUND", message: `${absent} does not exist` });
    await expect(readJsonlLog(dir, testRegistry())).rejects.toMatchObject({ code: "LOG_NOT_FOUND", message: `${dir} is a directory, not a log file` });
  });

  it("makes concurrent appends durable in seq order through group commit", async () => {
    const path = freshPath();
    const { log } = await createJsonlLog(path, { registry: testRegistry() });
    await Promise.all(Array.from({ length: 200 }, (_, i) => log.append(noteAdded.input({ text: String(i) }))));
    await log.close();
    const reread = await readJsonlLog(path, testRegistry());
    expect(reread.log.slice().map((event) => (event.data as { text: string }).text)).toEqual(
      Array.from({ length: 200 }, (_, i) => String(i)),
    );
  });
});
