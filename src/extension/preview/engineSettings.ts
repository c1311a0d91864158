// The SQL engine's settings: its memory limit (at least 64 MiB) and its kept copies' budget.

import { DEFAULT_KEPT_COPIES_MB, DEFAULT_MEMORY_LIMIT_MB } from '../../engine/engineClient';
import { setting } from '../ui/vscodeSettings';

export function engineSettings(): { memoryLimitMb: number; keptCopiesMb: number } {
  const whole = (value: number, fallback: number, least: number): number => (Number.isFinite(value) ? Math.max(least, Math.floor(value)) : fallback);
  return {
    memoryLimitMb: whole(setting('dataQuery.preview.memoryLimitMb'), DEFAULT_MEMORY_LIMIT_MB, 64),
    keptCopiesMb: whole(setting('dataQuery.preview.keptCopiesMb'), DEFAULT_KEPT_COPIES_MB, 0),
  };
}
