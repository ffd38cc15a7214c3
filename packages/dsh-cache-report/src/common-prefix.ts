/** How many leading items two token lists share. */
export function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}
