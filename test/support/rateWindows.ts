// What the rate-limit tests measure a run by: the most starts that fell in any one window, and
// seeded pseudo-random numbers, so that a failing randomized run can be repeated.

/** The largest number of `times` in any half-open window [t, t + windowMs). */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j] < sorted[i] + windowMs) j++;
    best = Math.max(best, j - i);
  }
  return best;
}

/** Seeded pseudo-random numbers in [0, 1), so a failing run can be repeated. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
