import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runUntilKilled } from "dsh-testkit";
import { afterAll, describe, expect, it } from "vitest";
import { openJsonlLog, readJsonlLog } from "./jsonl-file.js";
import { serializeEventLine } from "./jsonl-format.js";
import { testRegistry } from "./test-support/registry.js";

const writer = fileURLToPath(new URL("./test-support/crash-writer.ts", import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Runs the writer until it has acknowledged `acks` batches, lets it run `lingerMs` more, then SIGKILLs it. */
const runAndKill = (path: string, acks: number, lingerMs: number) => runUntilKilled(writer, [path], acks, lingerMs);

/**
 * A SIGKILL cannot cut a single write(2) to a regular file, so a power cut is simulated too: the
 * first part of the next, never-acknowledged line is left on disk for the next writer to recover.
 */
async function leaveTornLine(path: string, round: number): Promise<void> {
  const { log } = await readJsonlLog(path, testRegistry());
  const line = serializeEventLine({ seq: log.length, type: "note/added", time: 0, data: { text: "unacknowledged" } });
  await appendFile(path, line.slice(0, 1 + ((round * 37) % (line.length - 1))));
}

describe("crash safety", () => {
  it("loses no acknowledged event when the writer is killed mid-append, again and again", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-crash-"));
    dirs.push(dir);
    const path = join(dir, "session.jsonl");
    let acknowledged = -1;
    let killsThatTore = 0;
    let linesTorn = 0;
    for (let round = 0; round < 8; round++) {
      acknowledged = Math.max(acknowledged, await runAndKill(path, 5 + round * 7, round % 3));
      const { log, tornTail } = await readJsonlLog(path, testRegistry());
      if (tornTail !== undefined) killsThatTore++;
      expect(log.length).toBeGreaterThan(acknowledged);
      for (const event of log) expect(event.data).toMatchObject({ text: `event-${event.seq}` });
      if (round % 2 === 0) {
        await leaveTornLine(path, round);
        linesTorn++;
      }
    }
    // The last kill may itself have torn a line (a batch larger than one write); opening recovers it.
    const { log } = await openJsonlLog(path, { registry: testRegistry() });
    await log.close();
    expect(log.length).toBeGreaterThan(acknowledged);
    expect((await readFile(path, "utf8")).endsWith("\n")).toBe(true);
    // Each torn line left behind sat mid-file once the next writer appended: reading succeeded, so it was truncated.
    console.info(
      `crash test: 8 kills, ${acknowledged + 1} events acknowledged and all present; ` +
        `${linesTorn} simulated torn lines and ${killsThatTore} kill-torn tails recovered`,
    );
  }, 60_000);
});
