/** A type whose every nested property is readonly. */
export type DeepReadonly<T> = T extends AbortSignal
  ? T
  : T extends readonly (infer U)[]
    ? readonly DeepReadonly<U>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** Roots whose whole subtree `deepFreeze` froze; frozen subtrees can never thaw, so they are skipped later. */
const deepFrozen = new WeakSet<object>();

/**
 * Every object reachable from `value` through own data properties, once each, excluding
 * `AbortSignal`s and subtrees already known to be deep-frozen.
 */
function* reachableObjects(value: unknown): Generator<object> {
  const stack: unknown[] = [value];
  const seen = new WeakSet<object>();
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== "object" && typeof current !== "function") continue;
    if (current === null || current instanceof AbortSignal || seen.has(current) || deepFrozen.has(current)) continue;
    seen.add(current);
    for (const key of Reflect.ownKeys(current)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(current, key);
      if (descriptor !== undefined && "value" in descriptor) stack.push(descriptor.value);
    }
    yield current;
  }
}

/**
 * Freezes `value` and everything reachable from it, iteratively and safely on cycles, then
 * returns it. `AbortSignal`s are left live so a frozen request can still be cancelled. Subtrees frozen
 * by an earlier call are not walked again, so freezing a request over shared history costs one step
 * per shared message.
 */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  const frozen: object[] = [];
  for (const object of reachableObjects(value)) {
    Object.freeze(object);
    frozen.push(object);
  }
  for (const object of frozen) deepFrozen.add(object);
  return value as DeepReadonly<T>;
}

/** Whether `value` and everything reachable from it (but `AbortSignal`s) is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  for (const object of reachableObjects(value)) if (!Object.isFrozen(object)) return false;
  return true;
}
