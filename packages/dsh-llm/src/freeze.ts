/** A type whose every nested property is readonly. */
export type DeepReadonly<T> = T extends AbortSignal
  ? T
  : T extends readonly (infer U)[]
    ? readonly DeepReadonly<U>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** Whether `value` is an object the walk still has to visit. */
function pending(value: unknown, seen: Set<object>): value is object {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  return !seen.has(value) && !(value instanceof AbortSignal);
}

/**
 * Every object reachable from `value` through array elements and own data properties, once each,
 * excluding `AbortSignal`s. Arrays are walked by their elements only. The set of visited objects
 * lives for one walk: nothing is recorded process-wide.
 */
function* reachableObjects(value: unknown): Generator<object> {
  const seen = new Set<object>();
  const stack: object[] = pending(value, seen) ? [value] : [];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    if (Array.isArray(current)) {
      for (const item of current) if (pending(item, seen)) stack.push(item);
    } else {
      for (const key of Reflect.ownKeys(current)) {
        // An accessor's descriptor has no value: getters are never called.
        const value: unknown = Reflect.getOwnPropertyDescriptor(current, key)?.value;
        if (pending(value, seen)) stack.push(value);
      }
    }
    yield current;
  }
}

/**
 * Freezes `value` and everything reachable from it, iteratively and safely on cycles, then
 * returns it. `AbortSignal`s are left live so a frozen request can still be cancelled.
 */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  for (const object of reachableObjects(value)) Object.freeze(object);
  return value as DeepReadonly<T>;
}

/** Whether `value` and everything reachable from it (but `AbortSignal`s) is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  for (const object of reachableObjects(value)) if (!Object.isFrozen(object)) return false;
  return true;
}

/** Whether `value` is a number JSON cannot carry exactly (`-0`, `NaN`, `±Infinity`). */
function inexactNumber(value: unknown): boolean {
  return typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0));
}

/** Why an inexact number is refused (`String(-0)` would say "0"). */
function inexactReason(value: unknown): string {
  return `${Object.is(value, -0) ? "-0" : String(value)} does not survive JSON`;
}

/**
 * Deep-freezes a value `JSON.parse` just produced (a tree: no cycles, no shared parts, nothing but
 * plain objects, arrays and primitives) in one iterative walk, refusing what JSON cannot carry back
 * exactly. Returns how many object keys it holds — fewer than the source text spelled out means the
 * text repeated a key — or, as a string, why it is refused: nesting deeper than `maxDepth` levels, or
 * a `-0` or non-finite number.
 */
export function freezeParsedJson(value: unknown, maxDepth: number): number | string {
  if (typeof value !== "object" || value === null) return inexactNumber(value) ? inexactReason(value) : 0;
  // One stack for every call (the walk never re-enters itself): most events are small, and fresh arrays per event add up.
  const stack = walkStack;
  const depths = walkDepths;
  const bottom = stack.length;
  stack.push(value);
  depths.push(1);
  let keys = 0;
  try {
    while (stack.length > bottom) {
      const current = stack.pop()!;
      const depth = depths.pop()!;
      if (depth > maxDepth) return `nests deeper than ${maxDepth} levels`;
      Object.freeze(current);
      // An array is walked by index (`for…in` would make a string of every index); an object by key.
      if (Array.isArray(current)) {
        for (let index = 0; index < current.length; index++) {
          const refused = visitChild(current[index], depth + 1);
          if (refused !== undefined) return refused;
        }
        continue;
      }
      for (const key in current) {
        keys++;
        const refused = visitChild((current as Record<string, unknown>)[key], depth + 1);
        if (refused !== undefined) return refused;
      }
    }
    return keys;
  } finally {
    // Only a refusal leaves entries behind; setting a length is a runtime call worth skipping per event.
    if (stack.length !== bottom) {
      stack.length = bottom;
      depths.length = bottom;
    }
  }
}

const walkStack: object[] = [];
const walkDepths: number[] = [];

/** One child of a node in {@link freezeParsedJson}'s walk: an object or array is queued at `depth`, an inexact number is refused (why). */
function visitChild(child: unknown, depth: number): string | undefined {
  if (typeof child === "object" && child !== null) {
    walkStack.push(child);
    walkDepths.push(depth);
    return undefined;
  }
  return inexactNumber(child) ? inexactReason(child) : undefined;
}
