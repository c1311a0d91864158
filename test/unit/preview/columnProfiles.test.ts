// The column profiles a preview session sends its grid, with a row source whose profile the
// test finishes column by column: when a profile starts, which version its parts carry, what a
// new view, a sort, closing, a failure or the engine's restart does to it, and the setting.

import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../src/core/logger';
import type { ColumnProfile, ResultProfile, View } from '../../../src/engine/engineProtocol';
import { yieldedToRestartError } from '../../../src/engine/engineClient';
import { EngineError } from '../../../src/engine/engineErrors';
import { PreviewSession } from '../../../src/extension/preview/previewSession';
import type { ProfileHandlers, RowSource } from '../../../src/extension/preview/rowSource';
import type { ToWebview, ViewState } from '../../../src/webview/previewProtocol';

const COLUMNS = ['a', 'b', 'c'];

/** One profile the session asked for: the view, what it reports, and its end, which the test decides. */
interface ProfileCall {
  view: View;
  handlers: ProfileHandlers;
  signal: AbortSignal;
  resolve(profile: ResultProfile): void;
  reject(err: unknown): void;
}

function columnProfile(name: string, nulls = 0): ColumnProfile {
  return { name, type: 'int64', count: 10, nulls, distinct: 10, distinctApproximate: false, min: 1, max: 10, mean: 5.5, histogram: [{ from: 1, to: 10, count: 10 }] };
}

function source(calls: ProfileCall[], o: { canShape?: boolean; profiles?: boolean } = {}): RowSource {
  return {
    title: 'three',
    columns: COLUMNS.map((name) => ({ name, type: 'int64', sqlType: 'BIGINT' })),
    canShape: o.canShape ?? true,
    page: async () => [[1, 2, 3]],
    cell: async () => 1,
    count: async () => 1,
    exportTarget: (view) => ({ handle: 'h', view }),
    ...(o.profiles === false
      ? {}
      : {
          profile: (view: View, handlers: ProfileHandlers, signal: AbortSignal) =>
            new Promise<ResultProfile>((resolve, reject) => {
              calls.push({ view, handlers, signal, resolve, reject });
              signal.addEventListener('abort', () => reject(new EngineError('cancelled', 'The query was cancelled.')));
            }),
        }),
    close: () => Promise.resolve(),
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function session(enabled = { on: true }): { s: PreviewSession; posted: ToWebview[]; profileMessages: () => ToWebview[] } {
  const posted: ToWebview[] = [];
  const s = new PreviewSession('loading', { post: (m) => posted.push(m), copy: () => undefined, export: () => undefined, columnProfiles: () => enabled.on }, nullLogger);
  return { s, posted, profileMessages: () => posted.filter((m) => m.type.startsWith('profile')) };
}

async function shown(s: PreviewSession): Promise<void> {
  await s.receive({ type: 'shown', version: s.state().version, firstRow: 0, rows: 1 });
  await settle();
}

const FILTERED: ViewState = { sort: [], filters: { a: '> 3' }, where: 'b < 9' };

describe('column profiles of a preview', () => {
  it('profiles the whole view once its first rows show, and sends each column as it is done, with the view\'s version', async () => {
    const calls: ProfileCall[] = [];
    const { s, profileMessages } = session();
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await s.receive({ type: 'setView', view: FILTERED });
    const version = s.state().version;
    await settle();
    assert.equal(calls.length, 0, 'nothing is profiled before the first rows show');
    assert.deepEqual(profileMessages().at(-1), { type: 'profileState', version, state: 'waiting' }, 'the strips wait');
    await shown(s);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].view.filters, [{ column: 'a', op: '>', value: '3' }], 'the filters in force');
    assert.equal(calls[0].view.where, 'b < 9', 'and the WHERE');
    calls[0].handlers.onRows(5000);
    calls[0].handlers.onColumn(columnProfile('a'));
    calls[0].handlers.onColumn(columnProfile('b', 4));
    assert.deepEqual(profileMessages().slice(-3), [
      { type: 'profileState', version, state: 'waiting', rows: 5000 },
      { type: 'profileColumn', version, column: columnProfile('a') },
      { type: 'profileColumn', version, column: columnProfile('b', 4) },
    ]);
    await shown(s);
    assert.equal(calls.length, 1, 'painting again starts no second profile');
  });

  it('cancels the profile of a view when a view of other rows comes, and sends nothing of it after', async () => {
    const calls: ProfileCall[] = [];
    const { s, profileMessages } = session();
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await shown(s);
    const old = s.state().version;
    calls[0].handlers.onColumn(columnProfile('a'));
    await s.receive({ type: 'setView', view: FILTERED });
    const current = s.state().version;
    assert.equal(calls[0].signal.aborted, true, 'the old profile is cancelled');
    const before = profileMessages().length;
    calls[0].handlers.onColumn(columnProfile('b'));
    await settle();
    assert.equal(profileMessages().length, before, 'a part of the old profile arriving late is not sent');
    assert.ok(!profileMessages().some((m) => m.type === 'profileFailed'), 'a cancel is no failure');
    assert.deepEqual(profileMessages().at(-1), { type: 'profileState', version: current, state: 'waiting' }, 'the new view\'s strips wait');
    await shown(s);
    assert.equal(calls.length, 2);
    calls[1].handlers.onColumn(columnProfile('a', 7));
    assert.deepEqual(profileMessages().at(-1), { type: 'profileColumn', version: current, column: columnProfile('a', 7) });
    assert.ok(profileMessages().filter((m) => m.type === 'profileColumn').every((m) => m.version === old || m.version === current));
  });

  it('keeps the profile when only the order changes, and sends what is done under the new version', async () => {
    const calls: ProfileCall[] = [];
    const { s, profileMessages } = session();
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await s.receive({ type: 'setView', view: FILTERED });
    await shown(s);
    calls[0].handlers.onColumn(columnProfile('a'));
    await s.receive({ type: 'setView', view: { ...FILTERED, sort: [{ column: 'c', descending: true }] } });
    const sorted = s.state().version;
    assert.equal(calls[0].signal.aborted, false, 'the profile goes on');
    assert.deepEqual(profileMessages().slice(-2), [
      { type: 'profileState', version: sorted, state: 'waiting' },
      { type: 'profileColumn', version: sorted, column: columnProfile('a') },
    ]);
    calls[0].handlers.onColumn(columnProfile('b'));
    assert.deepEqual(profileMessages().at(-1), { type: 'profileColumn', version: sorted, column: columnProfile('b') }, 'later parts carry the version shown');
    await shown(s);
    assert.equal(calls.length, 1, 'no second profile of the same rows');
  });

  it('cancels the profile when the preview closes', async () => {
    const calls: ProfileCall[] = [];
    const { s } = session();
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await shown(s);
    s.dispose();
    assert.equal(calls[0].signal.aborted, true);
  });

  it('shows a failed profile as one note, which Try again clears by profiling again; a restarted engine gets one more try by itself', async () => {
    const calls: ProfileCall[] = [];
    const { s, posted, profileMessages } = session();
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await shown(s);
    const version = s.state().version;
    calls[0].reject(new EngineError('corrupt', 'part-00001.jsonl.gz is damaged: download the job again.'));
    await settle();
    const failed = profileMessages().filter((m) => m.type === 'profileFailed');
    assert.equal(failed.length, 1);
    assert.match((failed[0] as { message: string }).message, /^Column profiles: .*part-00001\.jsonl\.gz is damaged/);
    assert.ok(!posted.some((m) => m.type === 'error'), 'the grid shows no error: it keeps working');
    await s.receive({ type: 'profileAgain', version: version + 5 });
    assert.equal(calls.length, 1, 'Try again of another version does nothing');
    await s.receive({ type: 'profileAgain', version });
    assert.equal(calls.length, 2, 'Try again profiles again');
    assert.deepEqual(profileMessages().at(-1), { type: 'profileState', version, state: 'waiting' });

    calls[1].reject(new EngineError('crashed', 'The SQL engine stopped unexpectedly (SIGKILL).'));
    await settle();
    assert.equal(calls.length, 3, 'started again after the engine stopped under it');
    assert.ok(!profileMessages().slice(-2).some((m) => m.type === 'profileFailed'));
    calls[2].reject(new EngineError('crashed', 'The SQL engine stopped unexpectedly (SIGKILL).'));
    await settle();
    assert.equal(calls.length, 3, 'but only once');
    assert.equal(profileMessages().at(-1)?.type, 'profileFailed');
  });

  it('starts again, as often as it happens and with no note, when the engine stopped it to restart for files elsewhere', async () => {
    const calls: ProfileCall[] = [];
    const { s, profileMessages } = session();
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await shown(s);
    for (let i = 0; i < 3; i++) {
      calls[i].reject(yieldedToRestartError());
      await settle();
      assert.equal(calls.length, i + 2, `started again after restart ${i + 1}`);
    }
    calls[3].handlers.onColumn?.(columnProfile('a'));
    assert.ok(!profileMessages().some((m) => m.type === 'profileFailed'), 'no note: nothing failed');
    assert.equal(profileMessages().at(-1)?.type, 'profileColumn');
  });

  it('hides the strips of a view whose first rows cannot be read (a failing WHERE), and brings them back with the next view\'s rows', async () => {
    const calls: ProfileCall[] = [];
    const { s, profileMessages } = session();
    const failing: RowSource = {
      ...source(calls),
      page: async (view) => {
        if (view.where) throw new EngineError('syntax', 'Referenced column "nope" not found. Correct the WHERE condition and apply it again.');
        return [[1, 2, 3]];
      },
    };
    s.attach(failing);
    await s.receive({ type: 'ready' });
    await shown(s);
    await s.receive({ type: 'setView', view: { sort: [], filters: {}, where: 'nope > 1' } });
    const bad = s.state().version;
    await s.receive({ type: 'fetch', version: bad, offset: 0, limit: 200 });
    await settle();
    assert.deepEqual(profileMessages().at(-1), { type: 'profileState', version: bad, state: 'off' }, 'no strips wait under an error');
    assert.equal(calls.length, 1, 'and nothing is profiled for it');

    await s.receive({ type: 'setView', view: { sort: [], filters: {}, where: '' } });
    const good = s.state().version;
    await s.receive({ type: 'fetch', version: good, offset: 0, limit: 200 });
    await s.receive({ type: 'shown', version: good, firstRow: 0, rows: 1 });
    await settle();
    assert.equal(calls.length, 2, 'the readable view is profiled');
    assert.deepEqual(profileMessages().find((m) => m.type === 'profileState' && m.version === good), { type: 'profileState', version: good, state: 'waiting' });
  });

  it('tells the grid a reloaded page of the profile so far: the columns done, or the failure', async () => {
    const calls: ProfileCall[] = [];
    const { s, profileMessages } = session();
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await shown(s);
    calls[0].handlers.onColumn(columnProfile('a'));
    const before = profileMessages().length;
    await s.receive({ type: 'ready' });
    const version = s.state().version;
    assert.deepEqual(profileMessages().slice(before), [
      { type: 'profileState', version, state: 'waiting' },
      { type: 'profileColumn', version, column: columnProfile('a') },
    ]);
  });

  it('has no strips for rows the engine cannot profile (a SQL statement\'s) or with the setting off, and follows the setting', async () => {
    for (const o of [{ canShape: false }, { profiles: false }]) {
      const calls: ProfileCall[] = [];
      const { s, profileMessages } = session();
      s.attach(source(calls, o));
      await s.receive({ type: 'ready' });
      await shown(s);
      assert.equal(calls.length, 0);
      assert.deepEqual(profileMessages(), [{ type: 'profileState', version: s.state().version, state: 'off' }], JSON.stringify(o));
    }
    const calls: ProfileCall[] = [];
    const setting = { on: false };
    const { s, profileMessages } = session(setting);
    s.attach(source(calls));
    await s.receive({ type: 'ready' });
    await shown(s);
    assert.equal(calls.length, 0, 'off: nothing profiled');
    setting.on = true;
    s.columnProfilesChanged();
    assert.equal(calls.length, 1, 'turned on: the rows on screen are profiled at once');
    assert.equal(profileMessages().at(-1)?.type, 'profileState');
    setting.on = false;
    s.columnProfilesChanged();
    assert.equal(calls[0].signal.aborted, true, 'turned off: the profile stops');
    assert.deepEqual(profileMessages().at(-1), { type: 'profileState', version: s.state().version, state: 'off' });
  });
});
