import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import { makeFixture } from './clientFixture';

describe('client options', () => {
  const numeric = ['maxRetries', 'retryBaseMs', 'retryMaxMs', 'maxRetryWaitMs', 'requestTimeoutMs', 'rateWindowMs', 'defaultRetryAfterMs', 'tokenRefreshMarginMs'] as const;
  for (const name of numeric) {
    it(`refuses ${name} that is ${name === 'maxRetryWaitMs' ? 'NaN or negative' : 'NaN, negative or Infinity'}, naming it`, () => {
      for (const bad of [NaN, -1, ...(name === 'maxRetryWaitMs' ? [] : [Infinity])]) {
        assert.throws(() => makeFixture({ [name]: bad }), (e: unknown) => isDqError(e) && e.kind === 'usage' && e.message.includes(name), String(bad));
      }
    });
  }

  it('refuses a fractional retry count, a zero timeout and a rate limit that is not a whole number of at least 1', () => {
    const cases: [Parameters<typeof makeFixture>[0], string][] = [
      [{ maxRetries: 1.5 }, 'maxRetries'],
      [{ requestTimeoutMs: 0 }, 'requestTimeoutMs'],
      [{ rateWindowMs: 0 }, 'rateWindowMs'],
      [{ rateLimits: { getJob: 0 } }, 'rateLimits.getJob'],
      [{ rateLimits: { listTables: NaN } }, 'rateLimits.listTables'],
      [{ rateLimits: { createJob: 2.5 } }, 'rateLimits.createJob'],
    ];
    for (const [options, name] of cases) {
      assert.throws(() => makeFixture(options), (e: unknown) => isDqError(e) && e.kind === 'usage' && e.message.includes(name), name);
    }
  });

  it('accepts no cap on waits (Infinity) and zero retries', () => {
    assert.doesNotThrow(() => makeFixture({ maxRetryWaitMs: Infinity, maxRetries: 0, retryBaseMs: 0 }));
  });

  it('refuses a base URL with a query string or credentials before any request', async () => {
    for (const baseUrl of ['https://api.example.test/?x=1', 'https://user:pw@api.example.test']) {
      const { client, gateway } = makeFixture({ baseUrl });
      await assert.rejects(client.listTables('canvas'), (e: unknown) => isDqError(e) && e.kind === 'usage' && !e.describe().includes('pw'), baseUrl);
      assert.equal(gateway.requests.length, 0);
    }
  });
});
