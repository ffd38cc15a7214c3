/**
 * Real shares rounded to whole numbers that add up to `total` exactly: each is rounded down, and the
 * ones left over go to the largest remainders (the first of equal ones). `total` is the shares' sum,
 * which floating-point sums miss by a little.
 */
export function roundToTotal(shares: readonly number[], total: number): number[] {
  const whole = shares.map((share) => Math.max(0, Math.floor(share + 1e-9)));
  let left = total - whole.reduce((sum, part) => sum + part, 0);
  const order = shares.map((share, index) => ({ index, rest: share - whole[index]! })).sort((a, b) => b.rest - a.rest || a.index - b.index);
  for (let at = 0; left > 0 && order.length > 0; at = (at + 1) % order.length, left--) whole[order[at]!.index]!++;
  return whole;
}
