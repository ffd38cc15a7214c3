import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";

/** Runs `fn` and returns how long it took, in milliseconds. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

/** Runs synchronous `fn` and returns how long it took, in milliseconds (no await in between). */
export function timedSync<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The p-th percentile (0..100) of some numbers, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Formats a number with a fixed count of significant digits. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return "0";
  return Math.abs(value) >= 10 ** digits ? Math.round(value).toLocaleString("en-US") : value.toPrecision(digits);
}

/** Prints a table with a header row. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")).join("\n");
}

/** The user's turn `i` of the peer benches' conversation. */
export const question = (i: number) => `Question ${i}: what does file ${i} contain?`;

/** The model's answer to {@link question} `i`. */
export const answer = (i: number) => `File ${i} holds configuration for module ${i}, mostly defaults.`;

/** A full garbage collection when the bench runs with `--expose-gc`, else nothing. */
export const collectGarbage: () => void = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** What one measured step leaves in memory: the heap still held after a collection, and how far peak RSS grew. */
export interface Memory {
  readonly heapKept: number;
  readonly peakRss: number;
}

/**
 * In this process: the heap `step` leaves held (it returns what it holds) after a collection, and the
 * growth of peak RSS, both over a baseline taken just before it. Needs `--expose-gc`.
 */
export async function memoryOf(step: () => unknown): Promise<Memory> {
  collectGarbage();
  const baselineHeap = process.memoryUsage().heapUsed;
  const baselineRss = process.memoryUsage().rss;
  const held = await step();
  collectGarbage();
  const heapKept = process.memoryUsage().heapUsed - baselineHeap;
  const peakRss = process.resourceUsage().maxRSS * 1024 - baselineRss;
  // Used after the figures are taken, so what the step holds is alive while they are.
  measuredLast = held;
  return { heapKept, peakRss };
}

/** What the last {@link memoryOf} step held, kept until the next one. */
let measuredLast: unknown;

/** The medians of five fresh processes running `script` (a bench file) with `args`, each printing one {@link Memory} as JSON. */
export function medianMemoryOf(script: string, args: readonly string[]): Memory {
  const runs = Array.from({ length: 5 }, () => JSON.parse(execFileSync(process.execPath, ["--expose-gc", "--conditions=dsh-source", "--import", "tsx", script, ...args], { encoding: "utf8" })) as Memory);
  return { heapKept: median(runs.map((run) => run.heapKept)), peakRss: median(runs.map((run) => run.peakRss)) };
}
