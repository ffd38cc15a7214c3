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
