// dq's exit codes are part of its fixed interface; scripts branch on them.

import { DqError, type ErrorKind } from '../client/errors';

export const EXIT = {
  ok: 0,
  usage: 2,
  auth: 3,
  notFound: 4,
  job: 5,
  service: 6,
  network: 7,
  io: 8,
  /** dq sync of several tables: some did not sync, the others did */
  someTablesFailed: 10,
  /** dq sync of several tables: not one synced */
  allTablesFailed: 11,
  interrupted: 130,
  /** stopped by SIGTERM (a scheduler, `kill`, `timeout`): 128 + 15, as shells report it */
  terminated: 143,
} as const;

const BY_KIND: Record<ErrorKind, number> = {
  usage: EXIT.usage,
  insecure: EXIT.usage,
  auth: EXIT.auth,
  notFound: EXIT.notFound,
  jobFailed: EXIT.job,
  jobExpired: EXIT.job,
  validation: EXIT.service,
  snapshotRequired: EXIT.service,
  rateLimited: EXIT.service,
  account: EXIT.service,
  server: EXIT.service,
  invalidResponse: EXIT.service,
  network: EXIT.network,
  io: EXIT.io,
  cancelled: EXIT.interrupted,
};

export function exitCodeFor(err: DqError): number {
  return BY_KIND[err.kind];
}
