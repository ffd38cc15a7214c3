/**
 * Keeps V8's compiled loader between loads. `JSON.parse` gives every object of one key order one hidden
 * class, and the optimized code of the reader and of admission is specialized to those classes. Once no
 * object of a class is alive for a few garbage collections, V8 drops the class and throws that code
 * away, so a process that loads a session, drops it and collects garbage ran the next load about a third
 * slower, interpreted and recompiled. This module keeps one content-free copy of each event type's
 * shape, which keeps those classes alive and holds nothing of any session.
 */


import { MAX_JSON_DEPTH, freezeParsedJson } from "dsh-llm";

/** Most event types whose shape is kept; a log with more types keeps the first ones seen. */
export const MAX_KEPT_SHAPES = 64;
/** Elements of an array kept in a shape (its elements' shapes are what matter, not how many there are). */
const KEPT_ELEMENTS = 4;
/** Nesting kept in a shape; deeper values become `null`. */
const KEPT_DEPTH = 16;

const shapes = new Map<string, unknown>();

/**
 * `value` with every string emptied, every array cut to its first few elements and nesting cut below
 * a few levels: the same keys in the same order and the same kinds of values, none of the content.
 */
export function shapeOf(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return "";
  if (typeof value !== "object" || value === null) return value;
  if (depth >= KEPT_DEPTH) return null;
  if (Array.isArray(value)) return value.slice(0, KEPT_ELEMENTS).map((item: unknown) => shapeOf(item, depth + 1));
  const shape: Record<string, unknown> = {};
  for (const key of Object.keys(value)) shape[key] = shapeOf((value as Record<string, unknown>)[key], depth + 1);
  return shape;
}

/**
 * Keeps the shape of the first event of each type among `events` (values `JSON.parse` just made),
 * replacing what an earlier load kept for that type. The shape is parsed from text too, so it has the
 * hidden classes the reader's own objects get.
 */
export function keepEventShapes(events: readonly unknown[]): void {
  const seen = new Set<string>();
  for (const event of events) {
    const type = typeof event === "object" && event !== null ? (event as { readonly type?: unknown }).type : undefined;
    if (typeof type !== "string" || seen.has(type)) continue;
    seen.add(type);
    if (shapes.size >= MAX_KEPT_SHAPES && !shapes.has(type)) continue;
    const shape = JSON.parse(JSON.stringify(shapeOf(event))) as unknown;
    // Frozen as the reader freezes its events: a frozen object has a hidden class of its own.
    freezeParsedJson(shape, MAX_JSON_DEPTH);
    shapes.set(type, shape);
  }
}

/** The shapes kept, by event type (for tests). */
export function keptEventShapes(): ReadonlyMap<string, unknown> {
  return shapes;
}
