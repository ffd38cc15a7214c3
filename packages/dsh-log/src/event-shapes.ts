/**
 * Keeps V8's compiled loader between loads. `JSON.parse` gives every object of one key order one hidden
 * class, and the optimized code of the reader and of admission is specialized to those classes. Once no
 * object of a class is alive for a few garbage collections, V8 drops the class and throws that code
 * away, so a process that loads a session, drops it and collects garbage ran the next load about a third
 * slower, interpreted and recompiled. This module keeps one small copy of each event type's shape — its
 * key names and the kinds of its values, no value itself — which keeps those classes alive.
 */
import { MAX_JSON_DEPTH, freezeParsedJson } from "dsh-llm";

/** Most event types whose shape is kept; a log with more types keeps the first ones seen. */
export const MAX_KEPT_SHAPES = 64;
/** Most object keys one kept shape holds; an event with more keeps no shape. */
export const MAX_SHAPE_KEYS = 256;
/** Elements of an array kept in a shape (its elements' shapes are what matter, not how many there are). */
const KEPT_ELEMENTS = 4;
/** Nesting kept in a shape; deeper values become `null`. */
const KEPT_DEPTH = 16;
/** The integers V8 keeps unboxed in an object's field (others are stored as doubles, a field of another kind). */
const SMALL_INTEGER = 2 ** 31;

const shapes = new Map<string, unknown>();

/** A value of the same kind as `value` for V8 (an unboxed integer, a double, anything else), holding none of it. */
function stand(value: number | boolean): number | boolean {
  if (typeof value === "boolean") return false;
  return Number.isInteger(value) && value >= -SMALL_INTEGER && value < SMALL_INTEGER ? 0 : 0.5;
}

/**
 * `value` with the same keys in the same order and values of the same kinds, none of the values:
 * strings emptied, numbers and booleans replaced, arrays cut to their first few elements and nesting
 * cut below a few levels. `undefined` when it would hold more than {@link MAX_SHAPE_KEYS} keys.
 */
export function shapeOf(value: unknown): unknown {
  const budget = { keys: MAX_SHAPE_KEYS };
  const shape = shapeWithin(value, 0, budget);
  return budget.keys < 0 ? undefined : shape;
}

function shapeWithin(value: unknown, depth: number, budget: { keys: number }): unknown {
  if (typeof value === "string") return "";
  if (typeof value === "number" || typeof value === "boolean") return stand(value);
  if (typeof value !== "object" || value === null || depth >= KEPT_DEPTH) return null;
  if (Array.isArray(value)) return value.slice(0, KEPT_ELEMENTS).map((item: unknown) => shapeWithin(item, depth + 1, budget));
  const shape: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (--budget.keys < 0) return null;
    shape[key] = shapeWithin((value as Record<string, unknown>)[key], depth + 1, budget);
  }
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
    const type = (event as { readonly type?: unknown } | null | undefined)?.type;
    if (typeof type !== "string" || seen.has(type)) continue;
    seen.add(type);
    if (shapes.size >= MAX_KEPT_SHAPES && !shapes.has(type)) continue;
    // A shape already kept has these hidden classes: it is kept as it is, and nothing is built.
    if (shapes.has(type) && hasShape(event, shapes.get(type), 0)) continue;
    const kept = shapeOf(event);
    if (kept === undefined) continue;
    const shape = JSON.parse(JSON.stringify(kept)) as unknown;
    // Frozen as the reader freezes its events: a frozen object has a hidden class of its own.
    freezeParsedJson(shape, MAX_JSON_DEPTH);
    shapes.set(type, shape);
  }
}

/** Whether {@link shapeOf} of `value` would equal `shape`, keys in the same order: a walk that builds nothing. */
function hasShape(value: unknown, shape: unknown, depth: number): boolean {
  if (typeof value === "string") return shape === "";
  if (typeof value === "number" || typeof value === "boolean") return shape === stand(value);
  if (typeof value !== "object" || value === null || depth >= KEPT_DEPTH) return shape === null;
  if (typeof shape !== "object" || shape === null || Array.isArray(value) !== Array.isArray(shape)) return false;
  if (Array.isArray(value)) {
    const elements = shape as readonly unknown[];
    if (elements.length !== Math.min(value.length, KEPT_ELEMENTS)) return false;
    return elements.every((element, index) => hasShape(value[index], element, depth + 1));
  }
  const keys = Object.keys(value);
  const shapeKeys = Object.keys(shape);
  if (keys.length !== shapeKeys.length) return false;
  return keys.every((key, index) => key === shapeKeys[index] && hasShape((value as Record<string, unknown>)[key], (shape as Record<string, unknown>)[key], depth + 1));
}

/** The shapes kept, by event type (for tests). */
export function keptEventShapes(): ReadonlyMap<string, unknown> {
  return shapes;
}
