// Fault injection, off by default. Every decision is drawn from a seeded sequence per fault
// kind, so the same seed and the same order of requests give the same faults.
//
// Spec syntax (parseFaultSpec): comma-separated `key=value` pairs, e.g.
//   5xx=0.1,504=0.05,drop=0.2,slow=300,truncate=0.1,storm=0.05,tokenReject=0.1,jobFail=0.5,account=AccountDisabled,seed=7
// Keys (shares are numbers in [0, 1]; times are milliseconds):
//   5xx=share          API calls answered 500/502/503 with the error envelope
//   504=share          API calls answered 504 {"error":{"message":...}}
//   drop=share         responses (API and object downloads) cut off mid-body
//   slow=ms            every response delayed by this long (slowShare=share limits it to some)
//   slowShare=share    share of responses that are slow (default 1 when slow is set)
//   truncate=share     object downloads that announce the full Content-Length but end early
//   storm=share        API calls that start a 429 storm for the calling credential
//   stormMs=ms         how long a storm lasts (default 3000)
//   tokenReject=share  valid, unexpired tokens answered 401 anyway
//   jobFail=share      jobs that end in `failed`
//   expireUrl=share    object downloads whose pre-signed link is refused with 403 as if
//                      expired: half of them before the first byte, half part-way through
//                      (some bytes, then the connection is cut); the link stays refused
//   ignoreRange=share  object Range requests answered 200 with the whole object from byte 0
//   account=Type       every data call answers that account error (AccountNotOnboarded,
//                      AccountDisabled, AccountUnderMaintenance, RequestTypeForbidden)
//   accountStatus=403|500  status of account errors (500 is what older gateways send)
//   retryAfter=seconds|date|none  how a 429 names its wait: delta-seconds (default), an HTTP
//                      date (`Wed, 21 Oct 2026 07:28:00 GMT`, rounded up to the second), or
//                      no Retry-After at all
//   opaqueToken=share  sign-ins answered with an opaque token (not a JWT: no `exp` to read);
//                      the gateway still accepts it until the token lifetime has passed
//   noExpiresIn=share  sign-ins answered without `expires_in`
//   noExpiresAt=share  jobs whose records never carry `expires_at`
//   jobExtras=share    jobs whose records (and their object entries) carry fields the
//                      contract does not name, which clients must ignore
//   html5xx=share      API calls (not the sign-in) answered 502 or 503 with an HTML page, as a
//                      load balancer in front of the gateway does, before authentication
//                      and rate limits
//   seed=n             the seed of the fault sequence (default: the emulator's seed)

import { hashString, unitFrom } from './prng';

export const ACCOUNT_ERRORS = ['AccountNotOnboarded', 'AccountDisabled', 'AccountUnderMaintenance', 'RequestTypeForbidden'] as const;
export type AccountErrorType = (typeof ACCOUNT_ERRORS)[number];

export interface FaultOptions {
  serverError?: number;
  gatewayTimeout?: number;
  drop?: number;
  slowMs?: number;
  slowShare?: number;
  truncate?: number;
  storm?: number;
  stormMs?: number;
  tokenReject?: number;
  jobFail?: number;
  expireUrl?: number;
  ignoreRange?: number;
  account?: AccountErrorType;
  accountStatus?: 403 | 500;
  retryAfter?: RetryAfterForm;
  opaqueToken?: number;
  noExpiresIn?: number;
  noExpiresAt?: number;
  jobExtras?: number;
  html5xx?: number;
  seed?: number;
}

export const RETRY_AFTER_FORMS = ['seconds', 'date', 'none'] as const;
/** How a 429 names its wait: delta-seconds, an HTTP date, or not at all. */
export type RetryAfterForm = (typeof RETRY_AFTER_FORMS)[number];

const SHARE_KEYS: Record<string, keyof FaultOptions> = {
  '5xx': 'serverError',
  '504': 'gatewayTimeout',
  drop: 'drop',
  slowShare: 'slowShare',
  truncate: 'truncate',
  storm: 'storm',
  tokenReject: 'tokenReject',
  jobFail: 'jobFail',
  expireUrl: 'expireUrl',
  ignoreRange: 'ignoreRange',
  opaqueToken: 'opaqueToken',
  noExpiresIn: 'noExpiresIn',
  noExpiresAt: 'noExpiresAt',
  jobExtras: 'jobExtras',
  html5xx: 'html5xx',
};
const MS_KEYS: Record<string, keyof FaultOptions> = { slow: 'slowMs', stormMs: 'stormMs' };

/** Every key a fault spec accepts. */
export const FAULT_KEYS: readonly string[] = [...Object.keys(SHARE_KEYS), ...Object.keys(MS_KEYS), 'account', 'accountStatus', 'retryAfter', 'seed'];

export function parseFaultSpec(spec: string): FaultOptions {
  const out: FaultOptions = {};
  const seen = new Set<string>();
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`Fault spec: "${part}" is not key=value.`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (seen.has(key)) throw new Error(`Fault spec: "${key}" is given twice.`);
    seen.add(key);
    if (key in SHARE_KEYS) {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new Error(`Fault spec: ${key} must be a share between 0 and 1, not "${value}".`);
      (out as Record<string, unknown>)[SHARE_KEYS[key]] = n;
    } else if (key in MS_KEYS) {
      const n = Number(value);
      if (value === '' || !Number.isInteger(n) || n < 0 || n > 600_000) throw new Error(`Fault spec: ${key} must be whole milliseconds (0 to 600000), not "${value}".`);
      (out as Record<string, unknown>)[MS_KEYS[key]] = n;
    } else if (key === 'account') {
      if (!(ACCOUNT_ERRORS as readonly string[]).includes(value)) {
        throw new Error(`Fault spec: account must be one of ${ACCOUNT_ERRORS.join(', ')}, not "${value}".`);
      }
      out.account = value as AccountErrorType;
    } else if (key === 'accountStatus') {
      if (value !== '403' && value !== '500') throw new Error(`Fault spec: accountStatus must be 403 or 500, not "${value}".`);
      out.accountStatus = Number(value) as 403 | 500;
    } else if (key === 'retryAfter') {
      if (!(RETRY_AFTER_FORMS as readonly string[]).includes(value)) {
        throw new Error(`Fault spec: retryAfter must be one of ${RETRY_AFTER_FORMS.join(', ')}, not "${value}".`);
      }
      out.retryAfter = value as RetryAfterForm;
    } else if (key === 'seed') {
      const n = Number(value);
      if (value === '' || !Number.isSafeInteger(n)) throw new Error(`Fault spec: seed must be an integer, not "${value}".`);
      out.seed = n;
    } else {
      throw new Error(`Fault spec: unknown key "${key}"; known keys are ${FAULT_KEYS.join(', ')}.`);
    }
  }
  return out;
}

export type FaultKind =
  | 'serverError'
  | 'gatewayTimeout'
  | 'drop'
  | 'slow'
  | 'truncate'
  | 'storm'
  | 'tokenReject'
  | 'jobFail'
  | 'expireUrl'
  | 'ignoreRange'
  | 'opaqueToken'
  | 'noExpiresIn'
  | 'noExpiresAt'
  | 'jobExtras'
  | 'html5xx';

/** Draws reproducible fault decisions. */
export class FaultInjector {
  private readonly counters = new Map<FaultKind, number>();
  private readonly seed: number;
  private readonly variants = new Map<FaultKind, number>();
  private readonly storms = new Map<string, number>();

  constructor(
    readonly options: FaultOptions,
    defaultSeed: number,
  ) {
    this.seed = options.seed ?? defaultSeed;
  }

  /** True when a fault of this kind should happen now (consumes one draw when enabled). */
  roll(kind: FaultKind): boolean {
    const share = this.shareOf(kind);
    if (!share) return false;
    const n = this.counters.get(kind) ?? 0;
    this.counters.set(kind, n + 1);
    return unitFrom(this.seed, hashString(kind), n) < share;
  }

  /** The next reproducible number in [0, 1) for choosing among variants of a fault. */
  draw(kind: FaultKind): number {
    const n = this.variants.get(kind) ?? 0;
    this.variants.set(kind, n + 1);
    return unitFrom(this.seed, hashString(kind), 0x5a17, n);
  }

  slowMs(): number {
    return this.options.slowMs && this.roll('slow') ? this.options.slowMs : 0;
  }

  /** Starts or continues a 429 storm for a credential; returns the ms it has left, or 0. */
  stormLeft(clientId: string, now: number): number {
    const until = this.storms.get(clientId) ?? 0;
    if (until > now) return until - now;
    if (this.roll('storm')) {
      const end = now + (this.options.stormMs ?? 3000);
      this.storms.set(clientId, end);
      return end - now;
    }
    return 0;
  }

  private shareOf(kind: FaultKind): number {
    const o = this.options;
    switch (kind) {
      case 'serverError':
        return o.serverError ?? 0;
      case 'gatewayTimeout':
        return o.gatewayTimeout ?? 0;
      case 'drop':
        return o.drop ?? 0;
      case 'slow':
        return o.slowMs ? (o.slowShare ?? 1) : 0;
      case 'truncate':
        return o.truncate ?? 0;
      case 'storm':
        return o.storm ?? 0;
      case 'tokenReject':
        return o.tokenReject ?? 0;
      case 'jobFail':
        return o.jobFail ?? 0;
      case 'expireUrl':
        return o.expireUrl ?? 0;
      case 'ignoreRange':
        return o.ignoreRange ?? 0;
      case 'opaqueToken':
        return o.opaqueToken ?? 0;
      case 'noExpiresIn':
        return o.noExpiresIn ?? 0;
      case 'noExpiresAt':
        return o.noExpiresAt ?? 0;
      case 'jobExtras':
        return o.jobExtras ?? 0;
      case 'html5xx':
        return o.html5xx ?? 0;
    }
  }
}
