// Polling: get-job calls the client's JobPoller makes while one job runs, as the job's
// duration grows from seconds to half an hour, on a fake clock; against polling every 5 s.

import { JobPoller } from '../../src/client/jobPoller';
import type { JobRecord } from '../../src/core/contract';
import { FakeClock } from '../../test/support/fakeClock';
import { compared, type Figure, type Row } from '../figure';

const FIXED_INTERVAL_MS = 5_000;
const DURATIONS: [string, number][] = [
  ['5 s', 5_000],
  ['30 s', 30_000],
  ['1 min', 60_000],
  ['5 min', 300_000],
  ['30 min', 1_800_000],
];

export const pollingFigure: Figure = {
  name: 'polling',
  title: 'Polling: get-job calls per job as the job takes longer',
  async run() {
    const calls = new Map<string, { poller: number; fixed: number }>();
    for (const [label, ms] of DURATIONS) calls.set(label, { poller: await pollerCalls(ms), fixed: Math.ceil(ms / FIXED_INTERVAL_MS) });
    const fixed = { label: `poll every ${FIXED_INTERVAL_MS / 1000} s` };
    const rows: Row[] = DURATIONS.map(([label]) => {
      const c = calls.get(label)!;
      return compared(`get-job calls, ${label} job`, c.poller, 'calls', { ...fixed, value: c.fixed });
    });
    // Growing like log(duration) means every 6x longer job adds about the same number of calls.
    const added = (from: string, to: string, who: 'poller' | 'fixed'): number => calls.get(to)![who] - calls.get(from)![who];
    const shortEnd = added('5 s', '30 s', 'poller');
    rows.push(
      compared('calls added by a 6x longer job, 5 min -> 30 min', added('5 min', '30 min', 'poller'), 'calls', { ...fixed, value: added('5 min', '30 min', 'fixed') }, {
        text: `log growth: <= 2 x the 5 s -> 30 s increase (${shortEnd})`,
        met: (r) => r.value <= 2 * shortEnd,
      }),
    );
    return rows;
  },
};

/** Calls until a job of `durationMs` completes: waiting for its first third, then running, as the emulator does. */
async function pollerCalls(durationMs: number): Promise<number> {
  const clock = new FakeClock();
  const created = clock.now();
  let calls = 0;
  const fetchJob = async (id: string): Promise<JobRecord> => {
    calls++;
    const age = clock.now() - created;
    if (age >= durationMs) return { id, status: 'complete', objects: [] };
    return { id, status: age < durationMs / 3 ? 'waiting' : 'running' };
  };
  const poller = new JobPoller({ fetchJob, clock });
  // as DataQueryClient.runJob starts it for a job that create-job answered as waiting
  await clock.run(poller.watch('job', { firstPollInMs: 1_000, known: { id: 'job', status: 'waiting' } }), 100_000);
  poller.close();
  return calls;
}
