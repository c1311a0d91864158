// The rows the grid holds: a few windows of `size` rows around what is on screen, fetched
// from the extension on demand and dropped, least recently used first, beyond `keep`. So
// the webview never holds more than `size * keep` rows, however big the result. A window
// whose fetch failed is asked for again after `retry()` (the user moved, or the engine
// answered again), never at once: a failure that stands is not asked in a loop.

export class RowWindows {
  /** window start -> rows, least recently used first */
  private readonly windows = new Map<number, unknown[][]>();
  private readonly pending = new Set<number>();
  /** windows whose fetch failed, not asked for again until `retry()` */
  private readonly failures = new Set<number>();
  private end: number | undefined;

  constructor(
    readonly size: number,
    private readonly keep: number,
  ) {}

  row(index: number): unknown[] | undefined {
    return this.windows.get(this.startOf(index))?.[index - this.startOf(index)];
  }

  /**
   * The windows to fetch so that rows [first, first + count) and the window after them are at
   * hand; marks the visible ones as recently used.
   */
  wanted(first: number, count: number, totalRows?: number): number[] {
    const limit = Math.min(totalRows ?? Infinity, this.end ?? Infinity);
    const starts: number[] = [];
    const lastVisible = this.startOf(Math.max(first, first + count - 1));
    for (let start = this.startOf(first); start <= lastVisible + this.size; start += this.size) {
      if (start >= limit) break;
      const rows = this.windows.get(start);
      if (rows) {
        this.windows.delete(start);
        this.windows.set(start, rows);
      } else if (!this.pending.has(start) && !this.failures.has(start)) {
        starts.push(start);
      }
    }
    return starts;
  }

  requested(start: number): void {
    this.pending.add(start);
  }

  received(start: number, rows: unknown[][]): void {
    this.pending.delete(start);
    this.failures.delete(start);
    if (rows.length < this.size) this.end = start + rows.length;
    this.windows.delete(start);
    this.windows.set(start, rows);
    for (const oldest of this.windows.keys()) {
      if (this.windows.size <= this.keep) break;
      this.windows.delete(oldest);
    }
  }

  /** A fetch that failed: the window is asked for again after the next `retry()`. */
  failed(start: number): void {
    this.pending.delete(start);
    this.failures.add(start);
  }

  /** The windows whose fetch failed may be asked for again, when next on screen. */
  retry(): void {
    this.failures.clear();
  }

  /** Rows held now. */
  heldRows(): number {
    let n = 0;
    for (const rows of this.windows.values()) n += rows.length;
    return n;
  }

  /** The row count when a short window revealed the end; else a lower bound one window past what was seen. */
  estimate(): { rows: number; exact: boolean } {
    const known = this.known();
    return known.exact ? known : { rows: known.rows + this.size, exact: false };
  }

  /** The rows known to exist: all of them when a short window revealed the end, else up to the end of the furthest window held. */
  known(): { rows: number; exact: boolean } {
    if (this.end !== undefined) return { rows: this.end, exact: true };
    let seen = 0;
    for (const [start, rows] of this.windows) seen = Math.max(seen, start + rows.length);
    return { rows: seen, exact: false };
  }

  clear(): void {
    this.windows.clear();
    this.pending.clear();
    this.failures.clear();
    this.end = undefined;
  }

  private startOf(index: number): number {
    return index - (index % this.size);
  }
}
