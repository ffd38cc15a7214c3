/** Where a request's body stops repeating the one before: the offset (in UTF-16 units) and a few characters of each from there. */
export interface Divergence {
  readonly offset: number;
  /** The previous body from the offset on, clipped. */
  readonly was: string;
  /** This body from the offset on, clipped. */
  readonly now: string;
}

/** How many characters of each body a divergence shows. */
const SHOWN = 48;

/** The first character where `after` stops repeating `before` (undefined when `after` starts with all of `before`). */
export function divergence(before: string, after: string): Divergence | undefined {
  const limit = Math.min(before.length, after.length);
  let offset = 0;
  while (offset < limit && before.charCodeAt(offset) === after.charCodeAt(offset)) offset++;
  if (offset === before.length) return undefined;
  // Never split a surrogate pair: step back to its start.
  if (offset > 0 && before.charCodeAt(offset - 1) >= 0xd800 && before.charCodeAt(offset - 1) <= 0xdbff) offset--;
  return { offset, was: before.slice(offset, offset + SHOWN), now: after.slice(offset, offset + SHOWN) };
}
