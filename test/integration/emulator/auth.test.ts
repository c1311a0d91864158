import * as assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { ManualClock, api, basic, raw, tokenFor } from '../../support/emulatorHarness';

describe('emulator: authentication', () => {
  let emu: RunningEmulator;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock();
    emu = await startEmulator({ clock, tokenTtlSec: 600, limits: false });
  });
  afterEach(() => emu.close());

  const login = (authorization: string | undefined, body: string, contentType = 'application/x-www-form-urlencoded') =>
    raw(`${emu.baseUrl}/ids/auth/login`, {
      method: 'POST',
      headers: { ...(authorization ? { authorization } : {}), 'content-type': contentType },
      body,
    });

  it('issues a bearer JWT whose exp matches the configured lifetime', async () => {
    const res = await login(basic(emu.clientId, emu.clientSecret), 'grant_type=client_credentials');
    assert.equal(res.status, 200);
    assert.equal(res.json.token_type, 'Bearer');
    assert.equal(res.json.expires_in, 600);
    assert.equal(typeof res.json.scope, 'string');
    const parts = (res.json.access_token as string).split('.');
    assert.equal(parts.length, 3);
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
    assert.equal(claims.sub, emu.clientId);
    assert.equal(claims.exp - claims.iat, 600);
    assert.equal(claims.iat, Math.floor(clock.now() / 1000));
  });

  it('answers 400 for a wrong grant type or a body that is not a form', async () => {
    const wrongGrant = await login(basic(emu.clientId, emu.clientSecret), 'grant_type=password');
    assert.equal(wrongGrant.status, 400);
    assert.ok(wrongGrant.json.error.uuid);
    const json = await login(basic(emu.clientId, emu.clientSecret), '{"grant_type":"client_credentials"}', 'application/json');
    assert.equal(json.status, 400);
  });

  it('answers 401 with the error envelope for missing or wrong credentials', async () => {
    for (const auth of [undefined, basic(emu.clientId, 'wrong'), basic('nobody', emu.clientSecret), 'Bearer abc']) {
      const res = await login(auth, 'grant_type=client_credentials');
      assert.equal(res.status, 401, String(auth));
      assert.equal(typeof res.json.error.message, 'string');
      assert.ok(!res.text.includes(emu.clientSecret));
    }
  });

  it('requires a token on data calls and accepts the legacy x-svcauth header', async () => {
    const token = await tokenFor(emu);
    assert.equal((await raw(`${emu.baseUrl}/dap/query/canvas/table`)).status, 401);
    assert.equal((await raw(`${emu.baseUrl}/dap/query/canvas/table`, { headers: { authorization: 'Bearer' } })).status, 401);
    assert.equal((await raw(`${emu.baseUrl}/dap/query/canvas/table`, { headers: { authorization: 'Bearer not.a.jwt' } })).status, 401);
    const legacy = await raw(`${emu.baseUrl}/dap/query/canvas/table`, { headers: { 'x-svcauth': token } });
    assert.equal(legacy.status, 200);
    const entry = emu.requestLog.entries().at(-1);
    assert.equal(entry?.auth, 'x-svcauth');
    assert.equal(entry?.clientId, emu.clientId);
  });

  it('lets Authorization win when both headers are present', async () => {
    const token = await tokenFor(emu);
    const badAuthGoodLegacy = await raw(`${emu.baseUrl}/dap/query/canvas/table`, {
      headers: { authorization: 'Bearer forged.token.value', 'x-svcauth': token },
    });
    assert.equal(badAuthGoodLegacy.status, 401);
    const goodAuthBadLegacy = await raw(`${emu.baseUrl}/dap/query/canvas/table`, {
      headers: { authorization: `Bearer ${token}`, 'x-svcauth': 'garbage' },
    });
    assert.equal(goodAuthBadLegacy.status, 200);
    assert.equal(emu.requestLog.entries().at(-1)?.auth, 'both');
  });

  it('rejects an expired token once the clock passes exp', async () => {
    const token = await tokenFor(emu);
    assert.equal((await api(emu, token, 'GET', '/query/canvas/table')).status, 200);
    clock.advance(601_000);
    const res = await api(emu, token, 'GET', '/query/canvas/table');
    assert.equal(res.status, 401);
    assert.match(res.json.error.message, /expired/);
  });

  it('rejects forged tokens: altered claims or another server\'s signature', async () => {
    const token = await tokenFor(emu);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.exp += 3600;
    const altered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    assert.equal((await api(emu, altered, 'GET', '/query/canvas/table')).status, 401);

    const other = await startEmulator({ clock, clientId: emu.clientId, clientSecret: emu.clientSecret });
    try {
      const foreign = await tokenFor(other);
      assert.equal((await api(emu, foreign, 'GET', '/query/canvas/table')).status, 401);
    } finally {
      await other.close();
    }
  });

  it('refuses to listen on a non-loopback host unless allowed', async () => {
    await assert.rejects(startEmulator({ host: '0.0.0.0' }), /loopback/);
  });
});
