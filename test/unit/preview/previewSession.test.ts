import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../src/core/logger';
import type { View } from '../../../src/engine/engineProtocol';
import { DqError } from '../../../src/client/errors';
import { EngineError } from '../../../src/engine/engineErrors';
import { PreviewSession } from '../../../src/extension/preview/previewSession';
import type { RowSource } from '../../../src/extension/preview/rowSource';
import type { ToWebview } from '../../../src/webview/previewProtocol';

const TOTAL = 1_000;

/** Rows 0..999 with one column `n`; the view's WHERE `n < x` and a descending sort are honoured. */
function numbers(): RowSource {
  const select = (view: View): number[] => {
    const bound = /^n < (\d+)$/.exec(view.where ?? '');
    if (view.where && !bound) throw new EngineError('syntax', 'Parser Error: syntax error at or near "<<". Correct the SQL and run it again.');
    const all = Array.from({ length: bound ? Number(bound[1]) : TOTAL }, (_, i) => i);
    return view.sort?.[0]?.descending ? all.reverse() : all;
  };
  return {
    title: 'numbers',
    columns: [{ name: 'n', type: 'int64', sqlType: 'BIGINT' }],
    canShape: true,
    page: async (view, offset, limit) => {
      return select(view).slice(offset, offset + limit).map((n) => [n]);
    },
    cell: async (view, offset) => select(view)[offset],
    count: async (view) => select(view).length,
    exportTarget: (view) => ({ handle: 'h', view }),
    close: () => Promise.resolve(),
  };
}

function session(): { session: PreviewSession; posted: ToWebview[]; copied: string[]; titles: string[] } {
  const posted: ToWebview[] = [];
  const copied: string[] = [];
  /** what the panel's tab was named, in order */
  const titles: string[] = [];
  const s = new PreviewSession('loading', { post: (m) => posted.push(m), copy: (t) => copied.push(t), export: () => undefined, retitle: (t) => titles.push(t) }, nullLogger);
  return { session: s, posted, copied, titles };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('preview session', () => {
  it('sends the columns once the webview is ready, then rows and the count of the view', async () => {
    const { session: s, posted } = session();
    s.attach(numbers());
    assert.equal(posted.length, 0, 'nothing is posted before the page can receive it');
    await s.receive({ type: 'ready' });
    await settle();
    const init = posted.find((m) => m.type === 'init');
    assert.ok(init && init.type === 'init');
    assert.deepEqual(init.columns.map((c) => c.name), ['n']);
    assert.deepEqual(posted.find((m) => m.type === 'count'), { type: 'count', version: init.version, total: TOTAL });
    await s.receive({ type: 'fetch', version: init.version, offset: 600, limit: 3 });
    assert.deepEqual(posted.at(-1), { type: 'rows', version: init.version, offset: 600, rows: [[600], [601], [602]] });
  });

  it('sorts and filters the whole result, and drops fetches of an older view', async () => {
    const { session: s, posted } = session();
    s.attach(numbers());
    await s.receive({ type: 'ready' });
    const old = s.state().version;
    await s.receive({ type: 'setView', view: { sort: [{ column: 'n', descending: true }], filters: {}, where: 'n < 500' } });
    const current = s.state().version;
    assert.ok(current > old);
    assert.deepEqual(posted.find((m) => m.type === 'view'), { type: 'view', version: current, view: { sort: [{ column: 'n', descending: true }], filters: {}, where: 'n < 500' } });
    await settle();
    assert.equal(s.state().total, 500);
    const before = posted.length;
    await s.receive({ type: 'fetch', version: old, offset: 0, limit: 2 });
    assert.equal(posted.length, before, 'rows of the old view are not sent');
    assert.deepEqual(await s.rows(0, 2), [[499], [498]]);
  });

  it('shows a bad WHERE as one message, keeps the text as typed, and clears it when corrected', async () => {
    const { session: s, posted } = session();
    s.attach(numbers());
    await s.receive({ type: 'ready' });
    void s.receive({ type: 'setView', view: { sort: [], filters: {}, where: 'n << 5' } });
    const shown = s.whenShown();
    await settle();
    assert.match(String(s.state().error), /syntax error at or near "<<"/);
    assert.equal(s.state().view.where, 'n << 5', 'what the user typed is kept');
    assert.ok(posted.some((m) => m.type === 'error' && /Correct the SQL/.test(m.message ?? '')));
    assert.equal((await shown).error, s.state().error, 'a waiter learns of the failure instead of hanging');
    await s.receive({ type: 'setView', view: { sort: [], filters: {}, where: 'n < 5' } });
    await settle();
    assert.equal(s.state().error, undefined);
    assert.equal(s.state().total, 5);
  });

  it('stops reading a slow view when the grid goes back to the view shown before, and shows no error for it', async () => {
    const { session: s, posted } = session();
    const fast = numbers();
    const aborted: string[] = [];
    /** a sort that never finishes on its own: only its signal ends it, as a cancel ends the engine's query */
    const slowSort = (view: View, signal: AbortSignal): Promise<never> =>
      new Promise<never>((_resolve, reject) =>
        signal.addEventListener('abort', () => {
          aborted.push(JSON.stringify(view.sort));
          reject(new EngineError('cancelled', 'The query was cancelled.'));
        }),
      );
    s.attach({ ...fast, page: (view, offset, limit, signal) => (view.sort?.length ? slowSort(view, signal) : fast.page(view, offset, limit, signal)) });
    await s.receive({ type: 'ready' });
    const before = s.state().view;
    await s.receive({ type: 'setView', view: { ...before, sort: [{ column: 'n', descending: true }] } });
    const sorting = s.state().version;
    const fetch = s.receive({ type: 'fetch', version: sorting, offset: 0, limit: 50 });
    await settle();
    assert.deepEqual(aborted, [], 'the sort is under way');
    await s.receive({ type: 'setView', view: before });
    await fetch;
    assert.deepEqual(aborted, ['[{"column":"n","descending":true}]'], 'the sort\'s read was stopped');
    await settle();
    assert.equal(s.state().error, undefined, 'a cancelled sort is not a failure');
    assert.ok(!posted.some((m) => m.type === 'rows' && m.version === sorting), 'no rows of the cancelled sort');
    assert.deepEqual(await s.rows(0, 2), [[0], [1]], 'the rows shown before, in file order');
  });

  it('answers a fetch that failed as failed, right after its error, and one that works again with its rows, the error cleared', async () => {
    const { session: s, posted } = session();
    const fast = numbers();
    let engineDown = true;
    const crashed = new EngineError('crashed', 'The SQL engine stopped unexpectedly (SIGKILL). Try again: the next action starts it afresh.');
    s.attach({ ...fast, page: (view, offset, limit, signal) => (engineDown ? Promise.reject(crashed) : fast.page(view, offset, limit, signal)) });
    await s.receive({ type: 'ready' });
    await settle();
    const version = s.state().version;
    /** what the grid learns of its rows, in order */
    const replies = (from: number): ToWebview[] => posted.slice(from).filter((m) => m.type === 'error' || m.type === 'rows' || m.type === 'rowsFailed');

    let from = posted.length;
    await s.receive({ type: 'fetch', version, offset: 200, limit: 200 });
    assert.deepEqual(replies(from), [
      { type: 'error', message: crashed.message },
      { type: 'rowsFailed', version, offset: 200 },
    ]);

    engineDown = false;
    from = posted.length;
    await s.receive({ type: 'fetch', version, offset: 200, limit: 200 });
    const [cleared, rows] = replies(from);
    assert.deepEqual(cleared, { type: 'error', message: undefined });
    assert.ok(rows.type === 'rows' && rows.offset === 200 && rows.rows.length === 200, 'the rows asked for again');

    await s.receive({ type: 'setView', view: { sort: [{ column: 'n', descending: true }], filters: {}, where: '' } });
    engineDown = true;
    from = posted.length;
    await s.receive({ type: 'fetch', version, offset: 0, limit: 200 });
    assert.deepEqual(replies(from), [], 'a fetch of an older view is not answered');
  });

  it('settles its first-rows promise when the grid reports painting the current view', async () => {
    const { session: s } = session();
    s.attach(numbers());
    await s.receive({ type: 'ready' });
    let settled = false;
    const shown = s.whenShown().then((state) => {
      settled = true;
      return state;
    });
    await s.receive({ type: 'shown', version: s.state().version - 1, firstRow: 0, rows: 30 });
    await settle();
    assert.equal(settled, false, 'an older view painted is not this one');
    await s.receive({ type: 'shown', version: s.state().version, firstRow: 0, rows: 30 });
    assert.deepEqual((await shown).shown, { version: s.state().version, firstRow: 0, rows: 30 });
  });

  it('copies a cell or a row whose long values the grid has only the start of, reading each whole', async () => {
    const whole = (n: number): string => `${'x'.repeat(10_000)}${n}`;
    const cellsRead: string[] = [];
    const source: RowSource = {
      ...numbers(),
      columns: [
        { name: 'n', type: 'int64', sqlType: 'BIGINT' },
        { name: 'doc', type: 'string', sqlType: 'VARCHAR' },
      ],
      page: async (_view, offset, limit) =>
        Array.from({ length: limit }, (_, i) => [offset + i, { cut: true, start: whole(offset + i).slice(0, 4096), length: whole(offset + i).length }]),
      cell: async (_view, offset, column) => {
        cellsRead.push(`${offset}:${column}`);
        return column === 1 ? whole(offset) : offset;
      },
    };
    const { session: s, copied } = session();
    s.attach(source);
    await s.receive({ type: 'ready' });
    const version = s.state().version;
    await s.receive({ type: 'copyWhole', version, row: 7, column: 1 });
    assert.deepEqual(copied, [whole(7)]);
    await s.receive({ type: 'copyWhole', version, row: 3 });
    assert.deepEqual(copied.at(-1), `3\t${whole(3)}`);
    assert.deepEqual(cellsRead, ['7:1', '3:1'], 'only the cut values are read whole, one at a time');
    await s.receive({ type: 'copyWhole', version: version + 5, row: 1, column: 1 });
    assert.equal(copied.length, 2, 'a copy of an older view is dropped');
  });

  it('copies a row read whole in the order the grid shows its columns: key first, meta last', async () => {
    const long = 'y'.repeat(10_000);
    const source: RowSource = {
      ...numbers(),
      columns: [
        { name: 'meta.action', type: 'string', sqlType: 'VARCHAR' },
        { name: 'value.doc', type: 'string', sqlType: 'VARCHAR' },
        { name: 'key.id', type: 'int64', sqlType: 'BIGINT', key: true },
      ],
      page: async (_view, _offset, limit) => Array.from({ length: limit }, () => ['upsert', { cut: true, start: long.slice(0, 4096), length: long.length }, '10000000000000001']),
      cell: async () => long,
    };
    const { session: s, copied } = session();
    s.attach(source);
    await s.receive({ type: 'ready' });
    await s.receive({ type: 'copyWhole', version: s.state().version, row: 0 });
    assert.deepEqual(copied, [`10000000000000001\t${long}\tupsert`]);
  });

  it('copies what the grid asks to copy, and ignores malformed messages', async () => {
    const { session: s, posted, copied } = session();
    s.attach(numbers());
    await s.receive({ type: 'ready' });
    const before = posted.length;
    await s.receive({ type: 'fetch', version: s.state().version, offset: -5, limit: 10 });
    await s.receive({ type: 'copy', text: '42' });
    assert.deepEqual(copied, ['42']);
    assert.equal(posted.length, before);
  });

  it('shows why a result could not be opened', async () => {
    const { session: s, posted } = session();
    await s.receive({ type: 'ready' });
    posted.length = 0;
    s.fail(new EngineError('corrupt', 'IO Error: part-1.jsonl.gz is not a gzip file. Download the job again.'));
    assert.deepEqual(posted, [
      { type: 'empty', title: 'loading', version: s.state().version },
      { type: 'error', message: 'IO Error: part-1.jsonl.gz is not a gzip file. Download the job again.' },
    ]);
    assert.match(String((await s.whenShown()).error), /not a gzip file/);
  });

  it('shows a failure that came before the grid was ready once it is, with what to do, and answers its fetches', async () => {
    const { session: s, posted } = session();
    s.fail(new DqError('io', 'Cannot read part-00000.jsonl.gz (ENOENT).', { hint: 'Download the job again.' }));
    assert.deepEqual(posted, [], 'nothing is posted before the page can receive it');
    await s.receive({ type: 'ready' });
    assert.deepEqual(posted, [
      { type: 'empty', title: 'loading', version: s.state().version },
      { type: 'error', message: 'Cannot read part-00000.jsonl.gz (ENOENT). Download the job again.' },
    ]);
    await s.receive({ type: 'fetch', version: s.state().version, offset: 0, limit: 200 });
    assert.deepEqual(posted.at(-1), { type: 'rows', version: s.state().version, offset: 0, rows: [] }, 'the grid is not left reading');
  });

  it('asks for the count again once a page reads after the engine stopped during the count', async () => {
    const { session: s, posted } = session();
    const fast = numbers();
    let engineDown = true;
    const crashed = new EngineError('crashed', 'The SQL engine stopped unexpectedly (SIGKILL). Try again: the next action starts it afresh.');
    s.attach({ ...fast, count: (view, signal) => (engineDown ? Promise.reject(crashed) : fast.count(view, signal)) });
    await s.receive({ type: 'ready' });
    await settle();
    assert.equal(s.state().error, crashed.message);
    engineDown = false;
    await s.receive({ type: 'fetch', version: s.state().version, offset: 200, limit: 200 });
    await settle();
    assert.equal(s.state().error, undefined);
    assert.equal(s.state().total, TOTAL, 'the count came after all');
    assert.deepEqual(posted.filter((m) => m.type === 'count'), [{ type: 'count', version: s.state().version, total: TOTAL }]);
  });

  it('does not ask again for a count that failed for want of memory each time a page reads', async () => {
    const { session: s } = session();
    const short = new EngineError('outOfMemory', 'The query ran out of memory (256 MiB). Raise dataQuery.preview.memoryLimitMb.');
    let counts = 0;
    s.attach({ ...numbers(), count: () => (counts++, Promise.reject(short)) });
    await s.receive({ type: 'ready' });
    await settle();
    for (const offset of [200, 400, 600]) await s.receive({ type: 'fetch', version: s.state().version, offset, limit: 200 });
    await settle();
    assert.equal(counts, 1);
    assert.equal(s.state().error, short.message, 'the reason stays in sight');
  });

  it('keeps saying a file is damaged when the rows before the damage read well', async () => {
    const { session: s } = session();
    const damaged = new EngineError('corrupt', 'part-2.jsonl.gz is damaged (it ends early): download the job again.');
    let counts = 0;
    s.attach({ ...numbers(), count: () => (counts++, Promise.reject(damaged)) });
    await s.receive({ type: 'ready' });
    await settle();
    await s.receive({ type: 'fetch', version: s.state().version, offset: 200, limit: 200 });
    await settle();
    assert.equal(s.state().error, damaged.message, 'the damage is still said');
    assert.equal(counts, 1, 'and not counted again on every page');
  });

  it('shows a failed statement in place of the rows before it: titled with it, no row, count or export of the old result, until a new result comes', async () => {
    const { session: s, posted } = session();
    let closed = 0;
    s.attach({ ...numbers(), title: 'SELECT n FROM numbers', close: async () => void closed++ });
    await s.receive({ type: 'ready' });
    await settle();
    assert.equal(s.state().total, TOTAL);
    const failed = 'SELECT n FROM numbers WHERE n >> 1';
    const from = posted.length;
    s.fail(new EngineError('syntax', 'Parser Error: syntax error at or near ">>". Correct the SQL and run it again.'), failed);
    await settle();

    const state = s.state();
    assert.equal(state.title, failed, 'the grid is titled with the statement that failed');
    assert.match(String(state.error), /syntax error at or near ">>"/);
    assert.deepEqual(state.columns, [], 'no column of the old result');
    assert.equal(state.total, undefined, 'nor its count');
    assert.equal(s.exportTarget(), undefined, 'Export has nothing to export');
    assert.equal(closed, 1, 'the old result is closed');
    assert.deepEqual(
      posted.slice(from).filter((m) => m.type !== 'error' || m.message !== undefined),
      [
        { type: 'empty', title: failed, version: state.version },
        { type: 'error', message: state.error },
      ],
      'the grid is told to drop the old rows, then why',
    );

    // the grid scrolls, or asks for a view: no row comes and the error stays
    await s.receive({ type: 'fetch', version: state.version, offset: 400, limit: 200 });
    assert.deepEqual(posted.at(-1), { type: 'rows', version: state.version, offset: 400, rows: [] });
    await s.receive({ type: 'setView', view: { sort: [{ column: 'n', descending: true }], filters: {}, where: '' } });
    assert.deepEqual(await s.rows(0, 3), []);
    assert.equal(s.state().error, state.error, 'the error stays');

    // the webview reloads (its panel was hidden): the same empty grid and error
    const reload = posted.length;
    await s.receive({ type: 'ready' });
    assert.deepEqual(posted.slice(reload), [
      { type: 'empty', title: failed, version: state.version },
      { type: 'error', message: state.error },
    ]);

    s.attach({ ...numbers(), title: 'SELECT 1' });
    await settle();
    assert.equal(s.state().error, undefined, 'a new result clears the error');
    assert.equal(s.state().title, 'SELECT 1');
    assert.deepEqual(await s.rows(0, 2), [[0], [1]]);
  });
  describe('a statement the user cancels', () => {
    const cancellations: [string, Error][] = [
      ['Cancel in the notification (the engine stops the query)', new EngineError('cancelled', 'The query was cancelled.')],
      ['Cancel while the views of new jobs were made', new DqError('cancelled', 'The schema was not needed any more.')],
    ];

    /** A console's grid showing `SELECT n FROM numbers`, painted; counts how often its result is closed. */
    async function showingNumbers(): Promise<ReturnType<typeof session> & { closed: () => number }> {
      const shown = session();
      const { session: s } = shown;
      let closed = 0;
      await s.receive({ type: 'ready' });
      const first = s.show(Promise.resolve({ ...numbers(), title: 'SELECT n FROM numbers', close: async () => void closed++ }), () => true, 'SELECT n FROM numbers');
      await settle();
      await s.receive({ type: 'shown', version: s.state().version, firstRow: 0, rows: 30 });
      await first;
      return { ...shown, closed: () => closed };
    }

    for (const [how, cancelled] of cancellations) {
      it(`keeps the rows, title, count and Export of the statement before: ${how}`, async () => {
        const { session: s, posted, titles, closed } = await showingNumbers();
        const before = s.state();
        assert.equal(before.total, TOTAL);
        const from = posted.length;

        const state = await s.show(Promise.reject(cancelled), () => true, 'SELECT * FROM slow');
        await settle();

        assert.equal(state.error, undefined, 'a cancellation is not shown as a failure');
        assert.equal(s.state().title, 'SELECT n FROM numbers', 'the grid keeps the title of the rows it shows');
        assert.deepEqual(titles, ['SELECT n FROM numbers'], 'and so does the panel\'s tab');
        assert.deepEqual(s.state().columns, before.columns);
        assert.equal(s.state().total, TOTAL);
        assert.equal(s.state().version, before.version, 'the view shown stays the current one');
        assert.deepEqual(s.exportTarget(), { handle: 'h', view: { sort: [], filters: [] } }, 'Export still has the rows shown');
        assert.equal(closed(), 0, 'the result shown is not closed');
        assert.deepEqual(posted.slice(from), [], 'the grid is told nothing: it keeps its rows');
        assert.deepEqual(await s.rows(600, 2), [[600], [601]]);
      });
    }

    it('keeps the message of a failed statement before it', async () => {
      const { session: s, titles } = await showingNumbers();
      await s.show(Promise.reject(new EngineError('syntax', 'Parser Error: syntax error at or near ">>".')), () => true, 'SELECT n >> 1');
      const failed = s.state();
      await s.show(Promise.reject(new EngineError('cancelled', 'The query was cancelled.')), () => true, 'SELECT * FROM slow');
      assert.deepEqual(s.state(), failed, 'the failure stays in sight, under its own title');
      assert.deepEqual(titles, ['SELECT n FROM numbers', 'SELECT n >> 1']);
    });

    it('says it was cancelled when the grid showed nothing yet, rather than loading for ever', async () => {
      const { session: s, posted, titles } = session();
      await s.receive({ type: 'ready' });
      const state = await s.show(Promise.reject(new EngineError('cancelled', 'The query was cancelled.')), () => true, 'SELECT * FROM slow');
      assert.equal(state.error, 'The query was cancelled.');
      assert.equal(state.title, 'SELECT * FROM slow');
      assert.deepEqual(titles, ['SELECT * FROM slow']);
      assert.deepEqual(posted.at(-1), { type: 'error', message: 'The query was cancelled.' });
    });

    it('still puts a statement that really failed in place of the rows before it', async () => {
      const { session: s, titles, closed } = await showingNumbers();
      const state = await s.show(Promise.reject(new EngineError('outOfMemory', 'The query ran out of memory (256 MiB).')), () => true, 'SELECT * FROM huge');
      assert.equal(state.error, 'The query ran out of memory (256 MiB).');
      assert.equal(state.title, 'SELECT * FROM huge');
      assert.deepEqual(titles, ['SELECT n FROM numbers', 'SELECT * FROM huge']);
      assert.equal(s.exportTarget(), undefined);
      await settle();
      assert.equal(closed(), 1);
    });

    it('shows nothing of a statement no longer wanted (a newer one took its place), cancelled or not', async () => {
      const { session: s, posted, titles } = await showingNumbers();
      const from = posted.length;
      await s.show(Promise.reject(new EngineError('syntax', 'Parser Error')), () => false, 'SELECT older');
      await s.show(Promise.reject(new EngineError('cancelled', 'The query was cancelled.')), () => false, 'SELECT old');
      let closedUnseen = 0;
      await s.show(Promise.resolve({ ...numbers(), title: 'SELECT late', close: async () => void closedUnseen++ }), () => false);
      assert.deepEqual(posted.slice(from), []);
      assert.deepEqual(titles, ['SELECT n FROM numbers']);
      assert.equal(closedUnseen, 1, 'a result that came too late is closed unseen');
    });
  });
});

describe('preview session: what the page keeps for a reload of the window', () => {
  const FILES = { paths: ['/results/web_logs/part-0.jsonl.gz'], name: 'canvas_logs.web_logs' };
  const JOB = { connection: 'Sample data', jobId: 'job-1' };
  const FILTERED = { sort: [{ column: 'n', descending: true }], filters: {}, where: 'n < 500' };

  it('tells the page the files shown and their job, and opens them in the view asked for', async () => {
    const { session: s, posted } = session();
    await s.receive({ type: 'ready' });
    void s.show(Promise.resolve({ ...numbers(), files: FILES, job: JOB }), undefined, undefined, { view: FILTERED });
    await settle();
    const init = posted.find((m) => m.type === 'init');
    assert.ok(init && init.type === 'init');
    assert.deepEqual(init.origin, { files: FILES, job: JOB });
    assert.deepEqual(init.view, FILTERED, 'the grid opens in the view');
    assert.equal(s.state().total, 500, 'the rows counted are the view\'s');
  });

  it('tells the page no files for a statement\'s rows', async () => {
    const { session: s, posted } = session();
    await s.receive({ type: 'ready' });
    s.attach(numbers());
    const init = posted.find((m) => m.type === 'init');
    assert.ok(init && init.type === 'init');
    assert.equal(init.origin, undefined);
  });

  it('keeps the files that could not be opened, and the view asked for, for the next reload', async () => {
    const { session: s, posted } = session();
    await s.receive({ type: 'ready' });
    const gone = new DqError('notFound', 'The files this grid showed are no longer on disk.');
    await s.show(Promise.reject(gone), undefined, 'canvas_logs.web_logs', { view: FILTERED, origin: { files: FILES, job: JOB } });
    assert.deepEqual(posted.filter((m) => m.type === 'empty').at(-1), { type: 'empty', title: 'canvas_logs.web_logs', version: s.state().version, origin: { files: FILES, job: JOB }, view: FILTERED });
  });
});
