import { spawn } from "node:child_process";
import { link, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireLock, lockFileOf } from "./file-lock.js";
import { createJsonlLog, openJsonlLog } from "./jsonl-file.js";
import { testRegistry } from "./test-support/registry.js";

let dir: string;
const planted: string[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-lock-"));
});
afterEach(async () => {
  for (const lock of planted.splice(0)) await rm(lock, { force: true });
  await rm(dir, { recursive: true, force: true });
});

async function logAt(name = "session.jsonl"): Promise<string> {
  const path = join(dir, name);
  await (await createJsonlLog(path, { registry: testRegistry() })).log.close();
  return path;
}

/** Plants a lock as another holder would have left it. */
async function plant(path: string, holder: { pid: number; host?: string; start?: string }): Promise<void> {
  const lock = await lockFileOf(path);
  planted.push(lock);
  await writeFile(lock, JSON.stringify({ host: hostname(), path, ...holder }));
}

describe("the lock of a JSONL log", () => {
  it("belongs to the file, not the path: a symlink or a hard link to a held log is refused", async () => {
    const path = await logAt();
    await symlink(path, join(dir, "via-symlink.jsonl"));
    await link(path, join(dir, "via-hardlink.jsonl"));
    const held = await openJsonlLog(path, { registry: testRegistry() });
    for (const other of ["via-symlink.jsonl", "via-hardlink.jsonl"]) {
      await expect(openJsonlLog(join(dir, other), { registry: testRegistry() })).rejects.toMatchObject({ code: "LOG_LOCKED" });
    }
    await held.log.close();
    await (await openJsonlLog(join(dir, "via-hardlink.jsonl"), { registry: testRegistry() })).log.close();
  });

  it("lives in a directory of this user's locks that only this user can enter", async () => {
    const path = await logAt();
    const { ino } = await stat(path);
    const lockPath = await lockFileOf(path);
    expect(dirname(lockPath)).toBe(join(tmpdir(), `dsh-locks-${userInfo().uid}`));
    expect(lockPath.endsWith(`-${ino}.lock`)).toBe(true);
    const lock = await acquireLock(path);
    expect((await stat(dirname(lockPath))).mode & 0o777).toBe(0o700);
    await lock.release();
    await lock.release();
  });

  it("records the holder's pid, host and process start time, and names the holder when refusing", async () => {
    const path = await logAt();
    const held = await openJsonlLog(path, { registry: testRegistry() });
    const holder = JSON.parse(await readFile(await lockFileOf(path), "utf8")) as Record<string, unknown>;
    expect(holder).toMatchObject({ pid: process.pid, host: hostname(), path });
    // Field 22 of /proc/self/stat: the process's start time, which a reused pid does not share.
    const stat = await readFile("/proc/self/stat", "utf8");
    expect(holder.start).toBe(/\) \S+(?: \S+){18} (\d+)/.exec(stat)![1]);
    await expect(acquireLock(path)).rejects.toThrow(`${path} is open for writing by process ${process.pid}`);
    await held.log.close();
    await expect(readFile(await lockFileOf(path))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("takes over a lock whose process is gone, or whose pid now names another process", async () => {
    const path = await logAt();
    await plant(path, { pid: 2_147_483_646 });
    await (await acquireLock(path)).release();
    await plant(path, { pid: process.pid, start: "not-this-process" });
    await (await acquireLock(path)).release();
  });

  /** A log whose lock a dead process left, with a takeover mutex another contender holds. */
  async function staleLockUnderTakeover(): Promise<{ path: string; mutex: string }> {
    const path = await logAt();
    await plant(path, { pid: 2_147_483_646 });
    const mutex = `${await lockFileOf(path)}.takeover`;
    planted.push(mutex);
    await writeFile(mutex, "");
    return { path, mutex };
  }

  it("takes a stale lock over past a takeover mutex someone abandoned", async () => {
    const { path, mutex } = await staleLockUnderTakeover();
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(mutex, longAgo, longAgo);
    await (await acquireLock(path)).release();
  });

  it("gives up, saying so, while another contender keeps its takeover mutex", async () => {
    const { path } = await staleLockUnderTakeover();
    await expect(acquireLock(path)).rejects.toMatchObject({ code: "LOG_LOCKED", message: `${path} could not be locked: other processes keep taking it over` });
  });

  it("never takes over a live holder's lock", async () => {
    const path = await logAt();
    await plant(path, { pid: process.ppid });
    await expect(acquireLock(path)).rejects.toThrow(`is open for writing by process ${process.ppid}`);
  });

  it("lets exactly one of many processes take a stale lock, round after round", async () => {
    const path = await logAt();
    const contender = fileURLToPath(new URL("./test-support/lock-contender.ts", import.meta.url));
    for (let round = 0; round < 6; round++) {
      await plant(path, { pid: 2_147_483_646 });
      const children = Array.from({ length: 6 }, () => spawn(process.execPath, ["--conditions=dsh-source", "--import", "tsx", contender, path], { stdio: ["pipe", "pipe", "inherit"] }));
      const lines = children.map((child) => {
        const queue: string[] = [];
        const waiting: ((line: string) => void)[] = [];
        let buffered = "";
        child.stdout.on("data", (chunk: Buffer) => {
          buffered += chunk.toString();
          for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
            const line = buffered.slice(0, end);
            buffered = buffered.slice(end + 1);
            const next = waiting.shift();
            if (next === undefined) queue.push(line);
            else next(line);
          }
        });
        return () => new Promise<string>((resolve) => (queue.length > 0 ? resolve(queue.shift()!) : waiting.push(resolve)));
      });
      // All contenders are started and waiting; release them at once so their takeovers race.
      expect(await Promise.all(lines.map((next) => next()))).toEqual(Array(6).fill("ready"));
      for (const child of children) child.stdin.write("go\n");
      const answers = await Promise.all(lines.map((next) => next()));
      expect(answers.filter((answer) => answer === "held")).toHaveLength(1);
      expect(answers.filter((answer) => answer === "locked")).toHaveLength(5);
      await Promise.all(children.map((child) => new Promise((resolve) => child.on("exit", resolve).stdin.end())));
    }
  });
});
