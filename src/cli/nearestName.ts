// "Did you mean ...?" for a mistyped option or command: the known name closest to what was
// typed, when it is close enough to be what was meant.

/** Edits between `a` and `b`: insertions, deletions, substitutions and swaps of neighbours. */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
    }
  }
  return rows[a.length][b.length];
}

/**
 * The name in `known` nearest to `typed`, or undefined when none is close: at most two edits,
 * and fewer than half the letters typed (so `-x` suggests nothing). A name that starts with
 * what was typed (`--jso` for `--json`) counts as close too.
 */
export function nearestName(typed: string, known: readonly string[]): string | undefined {
  const lower = typed.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(lower, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  if (best && best.d <= 2 && best.d * 2 < lower.length) return best.name;
  const prefixed = lower.length >= 3 ? known.filter((n) => n.toLowerCase().startsWith(lower)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
