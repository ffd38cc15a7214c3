import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signHead } from "./signed-head.js";
import { FileWitness, readWitnessFile } from "./witness.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-witness-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const { privateKey } = generateKeyPairSync("ed25519");
const head = (events: number) => signHead({ sessionId: "s", events, head: "ab".repeat(32) }, privateKey, 1000 + events);

describe("a witness file", () => {
  it("appends one signed head per line, readable by its owner only, and reads them back in order without a torn last line", async () => {
    const path = join(dir, "w.jsonl");
    const witness = new FileWitness(path);
    await witness.append(head(1));
    await witness.append(head(2));
    await witness.close();
    await witness.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).toBe(`${JSON.stringify(head(1))}\n${JSON.stringify(head(2))}\n`);
    await writeFile(path, `${await readFile(path, "utf8")}{"format":"dsh-he`);
    expect(await readWitnessFile(path)).toEqual([head(1), head(2)]);
  });

  it("names a missing file and the line of anything that is not a signed head", async () => {
    const path = join(dir, "w.jsonl");
    await expect(readWitnessFile(path)).rejects.toMatchObject({ code: "LOG_NOT_FOUND", message: `the witness ${path} does not exist` });
    await writeFile(path, `${JSON.stringify(head(1))}\nnot json\n`);
    await expect(readWitnessFile(path)).rejects.toMatchObject({ code: "LOG_CORRUPT", message: `${path}, line 2: unreadable JSON` });
    await writeFile(path, `${JSON.stringify({ ...head(1), events: -1 })}\n`);
    await expect(readWitnessFile(path)).rejects.toMatchObject({ code: "LOG_CORRUPT", message: expect.stringMatching(new RegExp(`^${path.replace(/[.]/g, "\\.")}, line 1: not a signed head: events`)) });
    await expect(readWitnessFile(dir)).rejects.toMatchObject({ code: "EISDIR" });
  });

  it("releases its file on close, and opens it again for a later head", async () => {
    const openFiles = async () => (await readdir("/proc/self/fd")).length;
    const before = await openFiles();
    const witness = new FileWitness(join(dir, "w.jsonl"));
    await witness.append(head(1));
    expect(await openFiles()).toBe(before + 1);
    await witness.close();
    expect(await openFiles()).toBe(before);
    await witness.append(head(2));
    await witness.close();
    expect((await readWitnessFile(join(dir, "w.jsonl"))).map((signed) => signed.events)).toEqual([1, 2]);
  });

  it("closes quietly when the file never opened: the append that failed reported it", async () => {
    const witness = new FileWitness(dir);
    await expect(witness.append(head(0))).rejects.toMatchObject({ code: "EISDIR" });
    await expect(witness.close()).resolves.toBeUndefined();
  });
});
