// The one way a moment is written for the wire and for people: ISO 8601 in UTC, to the
// second unless there are milliseconds (`2026-11-20T08:00:00Z`).

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
