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
  let offset = 0;
  // Past the end of the shorter body a character code is NaN, which equals nothing.
  while (offset < before.length && before.charCodeAt(offset) === after.charCodeAt(offset)) offset++;
  if (offset === before.length) return undefined;
  // Never split a surrogate pair: step back to its start.
  const previous = before.charCodeAt(offset - 1);
  if (previous >= 0xd800 && previous <= 0xdbff) offset--;
  return { offset, was: before.slice(offset, offset + SHOWN), now: after.slice(offset, offset + SHOWN) };
}
