import { setTimeout as sleep } from "node:timers/promises";
import { LogError } from "dsh-log";

/** What a wait for the database's write lock is for, for the message when it runs out. */
export interface LockWait {
  /** The store, as messages name it. */
  readonly location: string;
  /** What was to be written: `session ID's append`, say. */
  readonly what: string;
  /** How long to wait in all, in ms. */
  readonly boundMs: number;
}

/** The first pause between two tries, and the longest: each doubles, with jitter, so many writers spread out. */
const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 250;

/** Whether `error` is SQLite saying another connection holds the lock it needs. */
function busy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * After a try that failed with `error`, `started` ms into the wait: the pause before the next try
 * (`pause` with jitter, no longer than what is left of the bound), or a throw: `error` itself when it
 * is not the lock, `LOG_LOCKED` naming the store and what was not written past the bound.
 */
function pauseAfter(error: unknown, started: number, pause: number, wait: LockWait): number {
  if (!busy(error)) throw error;
  const waited = Date.now() - started;
  if (waited >= wait.boundMs) {
    throw new LogError("LOG_LOCKED", `the SQLite store ${wait.location} stayed locked by other writers for ${Math.round(waited / 1000)} s: ${wait.what} was not written`, { cause: error });
  }
  return Math.min(pause / 2 + Math.random() * pause, wait.boundMs - waited);
}

/**
 * {@link withWriteLock} for what cannot wait asynchronously (opening the database in a constructor):
 * the pauses block, as SQLite's own busy wait would.
 */
export function withWriteLockSync<T>(work: () => T, wait: LockWait): T {
  const started = Date.now();
  const pauses = new Int32Array(new SharedArrayBuffer(4));
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return work();
    } catch (error) {
      Atomics.wait(pauses, 0, 0, pauseAfter(error, started, pause, wait));
    }
  }
}

/**
 * Runs `work` (one write transaction) until it gets the database's write lock: while another
 * process holds it, tries again after a pause that doubles (with jitter) up to a quarter second, so
 * the wait follows the load without blocking the event loop. Past `boundMs` it is `LOG_LOCKED`,
 * naming the store and what was not written; any other error is thrown as it is.
 */
export async function withWriteLock<T>(work: () => T, wait: LockWait): Promise<T> {
  const started = Date.now();
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return work();
    } catch (error) {
      await sleep(pauseAfter(error, started, pause, wait));
    }
  }
}
