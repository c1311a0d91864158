// What a benchmark figure is: a named module that measures something next to a baseline
// taken in the same run, and returns rows for the table and bench/results.json.

export interface Row {
  /** what was measured, e.g. "unpaced: dq query of 512 MB" */
  measure: string;
  value: number;
  unit: Unit;
  /** the same quantity for the baseline, measured in this run (or read from the previous one) */
  baseline: { label: string; value?: number };
  /** baseline ÷ value: every quantity here is better when lower, so above 1 beats the baseline */
  ratio?: number;
  /** e.g. "ratio >= 0.95"; absent when the issue sets no goal for this row */
  goal?: string;
  met?: boolean;
}

export type Unit = 's' | 'ms' | 'MiB' | 'KiB' | 'calls' | 'responses';

export interface BenchContext {
  /** the repository root */
  root: string;
  /** a scratch folder, removed after the run */
  scratch: string;
  /** smaller sizes and fewer repetitions, for trying the harness out (results.json is left alone) */
  quick: boolean;
  /** also profile what is measured, where a figure can (the download figure profiles dq) */
  profile: boolean;
  /** the rows of the previous results.json, by figure name and measure */
  previous(figure: string, measure: string): Row | undefined;
  /** progress for the person waiting, on stderr */
  log(message: string): void;
}

export interface Figure {
  name: string;
  title: string;
  run(ctx: BenchContext): Promise<Row[]>;
}

/** A row whose baseline was measured (or remembered); the ratio follows from the two values. */
export function compared(measure: string, value: number, unit: Unit, baseline: Row['baseline'], goal?: Goal): Row {
  const ratio = baseline.value !== undefined && value > 0 ? baseline.value / value : undefined;
  const row: Row = { measure, value, unit, baseline, ratio };
  if (goal) {
    row.goal = goal.text;
    row.met = goal.met(row);
  }
  return row;
}

export interface Goal {
  text: string;
  met(row: Row): boolean;
}

export const ratioAtLeast = (min: number): Goal => ({ text: `ratio >= ${min}`, met: (r) => (r.ratio ?? 0) >= min });
export const valueAtMost = (max: number, unit: Unit): Goal => ({ text: `<= ${max} ${unit}`, met: (r) => r.value <= max });

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
