import { z } from "zod";

/** A value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A JSON object, as used for tool parameters and provider extensions. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** A zod check that refuses what {@link findNonJson} refuses, with its reason as the message. */
function refuseNonJson(context: z.core.ParsePayload<unknown>): void {
  const why = findNonJson(context.value);
  if (why !== undefined) context.issues.push({ code: "custom", input: context.value, message: why });
}

/**
 * Zod schema of {@link JsonValue}: exactly what {@link findNonJson} accepts (finite numbers, no -0,
 * no `undefined`, plain objects, no cycles, at most {@link MAX_JSON_DEPTH} deep). One check over the
 * whole value rather than a recursive schema, so zod can compile the schemas that hold it.
 */
export const jsonValueSchema: z.ZodType<JsonValue> = z.custom<JsonValue>().check(refuseNonJson);

/** Zod schema of {@link JsonObject}: a plain object that {@link jsonValueSchema} accepts. */
export const jsonObjectSchema: z.ZodType<JsonObject> = z.record(z.string(), z.unknown()).check(refuseNonJson) as z.ZodType<JsonObject>;

/** How deeply JSON values may nest (arrays and objects) in anything dsh logs or sends. */
export const MAX_JSON_DEPTH = 512;

/** The most of a path a message shows: a deep place keeps its start and its end. */
const PATH_SHOWN = 120;

/** `reason` at `path`, a long path cut in its middle so the line stays readable. */
function at(path: string, reason: string): string {
  const shown = path.length <= PATH_SHOWN ? path : `${path.slice(0, PATH_SHOWN / 2)}…${path.slice(-PATH_SHOWN / 2)}`;
  return `${shown}: ${reason}`;
}

/**
 * Returns the first place in `value` that JSON cannot represent exactly (a path and a reason), or
 * that nests deeper than {@link MAX_JSON_DEPTH}, or `undefined` when `value` round-trips through
 * JSON unchanged. Iterative: any depth is reported, never a stack overflow.
 */
export function findNonJson(value: unknown): string | undefined {
  type Frame = { readonly value: unknown; readonly path: string; readonly depth: number } | { readonly leave: object };
  const stack: Frame[] = [{ value, path: "$", depth: 0 }];
  const ancestors = new Set<object>();
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ("leave" in frame) {
      ancestors.delete(frame.leave);
      continue;
    }
    const { value: current, path, depth } = frame;
    if (current === null || typeof current === "string" || typeof current === "boolean") continue;
    if (typeof current === "number") {
      if (!Number.isFinite(current)) return at(path, `${current} is not a finite number`);
      if (Object.is(current, -0)) return at(path, "-0 does not survive JSON");
      continue;
    }
    if (typeof current !== "object") return at(path, `${typeof current} is not JSON`);
    if (ancestors.has(current)) return at(path, "cycle");
    if (depth === MAX_JSON_DEPTH) return at(path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
    ancestors.add(current);
    stack.push({ leave: current });
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        if (!(i in current)) return at(`${path}[${i}]`, "sparse array hole");
        stack.push({ value: current[i], path: `${path}[${i}]`, depth: depth + 1 });
      }
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(current);
    if (proto !== Object.prototype && proto !== null) return at(path, "not a plain object");
    for (const [key, child] of Object.entries(current)) stack.push({ value: child, path: `${path}.${key}`, depth: depth + 1 });
  }
  return undefined;
}

/** Deep equality of two JSON values, insensitive to object key order. */
export function jsonEquals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEquals(item, b[i]));
  }
  const objectA = a as JsonObject;
  const objectB = b as JsonObject;
  const keys = Object.keys(objectA);
  if (keys.length !== Object.keys(objectB).length) return false;
  return keys.every((key) => Object.hasOwn(objectB, key) && jsonEquals(objectA[key], objectB[key]));
}

/**
 * A deep-frozen copy of `value` if it is exact JSON nesting at most {@link MAX_JSON_DEPTH} levels,
 * else `undefined` ({@link findNonJson} says why). Object keys keep their order. Recursive, but never
 * deeper than the limit, so a cycle or a deep structure ends in `undefined`, not a stack overflow.
 */
export function frozenJsonCopy(value: unknown): JsonValue | undefined {
  const copy = copyAt(value, 0);
  return copy === INEXACT ? undefined : (copy as JsonValue);
}

const INEXACT = Symbol("inexact");

function copyAt(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? value : INEXACT;
    case "object":
      break;
    default:
      return INEXACT;
  }
  if (value === null) return null;
  if (depth === MAX_JSON_DEPTH) return INEXACT;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return INEXACT;
      const item = copyAt(value[i], depth + 1);
      if (item === INEXACT) return INEXACT;
      copy[i] = item;
    }
    return Object.freeze(copy);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return INEXACT;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyAt((value as Record<string, unknown>)[key], depth + 1);
    if (item === INEXACT) return INEXACT;
    // An own "__proto__" key (JSON.parse makes one) must stay a key: assigning it would set the prototype.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return Object.freeze(copy);
}

/**
 * The same JSON with object keys sorted at every depth, for wire bytes that must not depend on
 * insertion order (which JSON.parse changes for integer-like keys). Keys are defined, never
 * assigned, so a key named `__proto__` stays a key.
 */
export function canonicalJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(canonicalJson);
  if (value === null || typeof value !== "object") return value;
  const object = value as { readonly [key: string]: JsonValue };
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(object).sort()) {
    Object.defineProperty(out, key, { value: canonicalJson(object[key]!), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * How deeply the JSON text `text` nests arrays and objects (0 for a scalar), read without parsing it:
 * brackets inside strings do not count. Any text is measured, valid JSON or not.
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
