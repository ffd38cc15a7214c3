import { constants } from "node:fs";
import { mkdtemp, readFile, readdir, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonlLog } from "./jsonl-file.js";
import { noteAdded, testRegistry } from "./test-support/registry.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-log-sink-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The open flags (octal in /proc) of this process's descriptors for `path`. */
async function openFlags(path: string): Promise<number[]> {
  const flags: number[] = [];
  for (const fd of await readdir("/proc/self/fd")) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    if (target !== path) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, "utf8").catch(() => "");
    const match = /^flags:\s+([0-7]+)$/m.exec(info);
    if (match !== null) flags.push(Number.parseInt(match[1]!, 8));
  }
  return flags;
}

// Durability itself needs a power cut to observe; what can be checked is how the file is written.
describe.runIf(process.platform === "linux")("the JSONL sink's file (Linux: flags read from /proc)", () => {
  it("is opened for appending with O_DSYNC once the first event is written, so every acknowledged write is durable", async () => {
    const path = join(dir, "session.jsonl");
    const { log } = await createJsonlLog(path, { registry: testRegistry() });
    expect(await openFlags(path)).toEqual([]);
    await log.append(noteAdded.input({ text: "hello" }));
    const flags = await openFlags(path);
    expect(flags).toHaveLength(1);
    expect(flags[0]! & constants.O_DSYNC).toBe(constants.O_DSYNC);
    expect(flags[0]! & constants.O_APPEND).toBe(constants.O_APPEND);
    await log.close();
    expect(await openFlags(path)).toEqual([]);
  });
});
