// Many processes writing one SQLite store at once, each its own session: how many of them get every
// append written, and the commits per second of all together against one process writing alone. The
// processes start, open the store and say so; then all are told to go at once, and only the writing
// is timed. Run by `pnpm bench`; as a child (`--writer PATH ID APPENDS`) it is one writing process.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EventRegistry, defineEvent } from "dsh-log";
import { SqliteStore } from "dsh-store-sqlite";
import { z } from "zod";

const note = defineEvent("bench/note", z.strictObject({ text: z.string() }));

/** One writing process: opens the store, says `ready`, waits for a line on stdin, then creates its session and appends `appends` events, one awaited commit each. */
async function writer(path: string, id: string, appends: number): Promise<void> {
  const store = new SqliteStore(path);
  process.stdout.write("ready\n");
  await once(process.stdin, "data");
  try {
    const registry = new EventRegistry().define(note);
    const { log } = await store.create({ registry, sessionId: id });
    for (let i = 0; i < appends; i++) await log.append(note.input({ text: `${id} ${i}` }));
    await log.close();
  } finally {
    await store.close();
  }
}

/** What one round of `writers` processes did. */
export interface WritersRow {
  readonly writers: number;
  readonly appends: number;
  /** Processes that wrote every append. */
  readonly completed: number;
  /** Commits per second of all of them together, from the first start to the last end. */
  readonly commitsPerSecond: number;
  /** That rate against one process alone doing the same appends in the same file. */
  readonly vsOne: number;
  /** The first failure's line, when one failed. */
  readonly failure?: string;
}

const here = fileURLToPath(import.meta.url);

/** Starts `count` writer processes on `path`, tells them all to go once every one is ready, and times them from there to the last one's end. */
async function round(path: string, count: number, appends: number, tag: string): Promise<{ completed: number; seconds: number; failure?: string }> {
  const children = Array.from({ length: count }, (_, i) => spawn(process.execPath, ["--conditions=dsh-source", "--import", "tsx", here, "--writer", path, `${tag}-${i}`, String(appends)], { stdio: ["pipe", "pipe", "pipe"] }));
  const ends = children.map(
    (child) =>
      new Promise<string | undefined>((resolve) => {
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("close", (code) => resolve(code === 0 ? undefined : stderr.trim().split("\n").at(-1) ?? `exit ${code}`));
      }),
  );
  await Promise.all(children.map((child) => once(child.stdout, "data")));
  const started = performance.now();
  for (const child of children) child.stdin.end("go\n");
  const results = await Promise.all(ends);
  const failures = results.filter((result) => result !== undefined);
  return { completed: count - failures.length, seconds: (performance.now() - started) / 1000, ...(failures[0] === undefined ? {} : { failure: failures[0] }) };
}

/** Rounds of 1, 10, 50 and 100 writers (1, 10 and 25 with `quick`), each in a fresh file. */
export async function sqliteWritersBench(quick: boolean): Promise<WritersRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "dsh-bench-writers-"));
  const appends = quick ? 10 : 20;
  try {
    // Process start-up is in every round: one writer alone, started the same way, is the baseline.
    const alone = await round(join(dir, "alone.db"), 1, appends, "alone");
    const oneRate = appends / alone.seconds;
    const rows: WritersRow[] = [];
    for (const count of quick ? [1, 10, 25] : [1, 10, 50, 100]) {
      const result = await round(join(dir, `writers-${count}.db`), count, appends, `w${count}`);
      const rate = (result.completed * appends) / result.seconds;
      rows.push({ writers: count, appends, completed: result.completed, commitsPerSecond: rate, vsOne: rate / oneRate, ...(result.failure === undefined ? {} : { failure: result.failure }) });
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--writer") await writer(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
