// Spans of time and ages in the words every view, notification and message uses: `23 s`,
// `4 min`, `3 h` beside a job or a wait, `5 min ago` for an age, and the spelled-out
// `50 minutes`, `42 hours` inside the sentences of error messages.

/**
 * `short`: what a glance reads, in whole units (`23 s`, `75 s`, `4 min`, `3 h`, `2 d`);
 * `long`: the largest fitting unit spelled out, for sentences (`0.3 s`, `50 minutes`, `42 hours`).
 */
export type DurationStyle = 'short' | 'long';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A span of time as a person reads it, in the given style (`short` unless told). */
export function formatDuration(ms: number, style: DurationStyle = 'short'): string {
  return style === 'long' ? longDuration(ms) : shortDuration(ms);
}

/** How long ago `since` was at `now`: `just now` within 10 s, else `5 min ago`. */
export function formatAge(since: number, now: number): string {
  return now - since < 10_000 ? 'just now' : `${formatDuration(now - since)} ago`;
}

function shortDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 100) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h`;
  return `${Math.round(h / 24)} d`;
}

function longDuration(ms: number): string {
  if (ms >= 2 * HOUR) return `${Math.round(ms / HOUR)} hours`;
  if (ms >= 2 * MINUTE) return `${Math.round(ms / MINUTE)} minutes`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}
