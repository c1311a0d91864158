// Limiter: a burst of job creations from one client against the emulator's limit, with the
// same short window on both sides so it runs in seconds. How close the burst comes to the
// allowed rate, and how many 429s the server had to send; the baseline is a client that fires
// everything at once without a limiter.

import { DataQueryClient } from '../../src/client/dataQueryClient';
import type { DataQueryClientOptions } from '../../src/client/types';
import { startEmulator } from '../../src/emulator/emulator';
import { compared, ratioAtLeast, type Figure } from '../figure';

const BURST = 50;
const LIMIT = 5;
const WINDOW_MS = 2_000;

export const limiterFigure: Figure = {
  name: 'limiter',
  title: `Limiter: a burst of ${BURST} job creations against a limit of ${LIMIT} per ${WINDOW_MS / 1000} s`,
  async run() {
    const ours = await burst({});
    if (ours.accepted < BURST) throw new Error(`only ${ours.accepted} of ${BURST} job creations were accepted`);
    const naive = await burst({ rateLimits: { createJob: Number.MAX_SAFE_INTEGER }, maxRetries: 0 });
    // A sliding window lets LIMIT starts through at once and LIMIT more each window after.
    const allowedSeconds = ((Math.ceil(BURST / LIMIT) - 1) * WINDOW_MS) / 1000;
    return [
      compared(`time until all ${BURST} were accepted`, ours.seconds, 's', { label: 'the allowed rate', value: allowedSeconds }, ratioAtLeast(0.95)),
      compared('429 answers from the server', ours.refused, 'responses', { label: 'client without limiter', value: naive.refused }, {
        text: '0',
        met: (r) => r.value === 0,
      }),
    ];
  },
};

/** Fires BURST identical create-job calls at a fresh emulator and reads its request log. */
async function burst(options: Partial<DataQueryClientOptions>): Promise<{ accepted: number; refused: number; seconds: number }> {
  const emulator = await startEmulator({ limits: { createJob: LIMIT }, limitWindowSec: WINDOW_MS / 1000, namespaces: ['canvas'] });
  const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret };
  const client = new DataQueryClient({
    baseUrl: emulator.baseUrl,
    dataPrefix: emulator.dataPrefix,
    credentials: async () => credentials,
    rateLimits: { createJob: LIMIT },
    rateWindowMs: WINDOW_MS,
    ...options,
  });
  try {
    const started = Date.now();
    await Promise.allSettled(Array.from({ length: BURST }, () => client.createJob('canvas', 'courses', { format: 'jsonl' })));
    const calls = emulator.requestLog.entries().filter((e) => e.operation === 'createJob');
    const accepted = calls.filter((e) => e.status === 200 || e.status === 202);
    return {
      accepted: accepted.length,
      refused: calls.filter((e) => e.status === 429).length,
      seconds: (Math.max(...accepted.map((e) => e.time)) - started) / 1000,
    };
  } finally {
    await client.close();
    await emulator.close();
  }
}
