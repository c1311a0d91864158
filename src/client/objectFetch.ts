// One result object, requested until all of it is in its sink: a fresh pre-signed link just
// before the first request, a new one after each refusal (403/404) up to `maxRefusalsInARow`
// in a row, and the other failures retried through the one retry loop with the downloader's
// own budget (progressBudget.ts), so an object is given up only after several attempts in a
// row that add no byte.

import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { downloadCancelled, linkRefused } from './downloadErrors';
import { attemptObject, type AttemptSettings, type ObjectRun, type ObjectTarget } from './objectAttempt';
import { ProgressBudget } from './progressBudget';
import { MAX_REFUSALS_IN_A_ROW, runWithRetries, type RetryPolicy } from './retryPolicy';
import { checkUrl } from './serviceUrls';

/** Asks the service for a new pre-signed URL for one object. */
export type FreshUrl = (objectId: string, signal: AbortSignal) => Promise<string>;

export interface FetchSettings extends AttemptSettings {
  clock: Clock;
  logger: Logger;
  retry: RetryPolicy;
  /** wait after a 429 from the object host that names none (default: the retry policy's 30 s) */
  defaultRetryAfterMs?: number;
  allowInsecureHttp: boolean;
  freshUrl: FreshUrl;
  /** default MAX_REFUSALS_IN_A_ROW; 1 gives up at the first refusal (a link that cannot be renewed) */
  maxRefusalsInARow?: number;
}

/** Requests the object until all of it is in the sink. */
export async function fetchObject(target: Omit<ObjectTarget, 'known'>, run: ObjectRun, settings: FetchSettings): Promise<void> {
  const { objectId, label, sink } = target;
  const { retry, logger } = settings;
  const maxRefusals = settings.maxRefusalsInARow ?? MAX_REFUSALS_IN_A_ROW;
  const link = async (): Promise<string> => {
    const url = await settings.freshUrl(objectId, run.signal);
    checkUrl(url, settings.allowInsecureHttp, 'download link');
    return url;
  };
  let url = await link();
  const object: ObjectTarget = { ...target, known: {} };
  const budget = new ProgressBudget(retry.maxRetries);
  await runWithRetries<void>(
    {
      policy: retry,
      clock: settings.clock,
      operation: `downloading ${label}`,
      signal: run.signal,
      default429Ms: settings.defaultRetryAfterMs,
      budget,
      cancelled: downloadCancelled,
      onRetry: ({ failure, delayMs, retry: inARow, maxRetries }) =>
        logger.info(`${label}: ${failure.error.message}; trying again in ${delayMs} ms (${inARow}/${maxRetries} in a row without progress)`),
    },
    async () => {
      const attempt = await attemptObject(url, object, run, settings);
      budget.progressed(sink.received);
      if (attempt.kind === 'complete') return { done: undefined };
      if (attempt.kind === 'refused') {
        const refusals = budget.refused();
        if (refusals >= maxRefusals) throw linkRefused(label, attempt.status, refusals);
        logger.info(`${label}: the object host answered ${attempt.status}; asking for a fresh link (${refusals}/${maxRefusals} in a row)`);
        url = await link();
        return { again: true };
      }
      return { failed: { error: attempt.error, status: attempt.error.status, retryAfter: attempt.retryAfter, slow: attempt.slow } };
    },
  );
}
