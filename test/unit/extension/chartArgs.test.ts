// dataQuery.chartResult's argument object checked before anything is opened (a wrong kind or
// a name that is not text refused, naming what to pass), the columns of a chart checked
// against a result's columns (a wrong one refused with the columns that fit), and the image a
// chart's page hands over written whole or not at all. VS Code is the plain-Node stand-in of
// fakeVscode.ts.

// first, so the module below loads the stand-in as `vscode`
import '../../support/fakeVscode';

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../../../src/client/errors';
import { ChartSpecError, checkChart, firstChart, keptColumn } from '../../../src/engine/chartColumns';
import type { ResultColumn } from '../../../src/engine/engineProtocol';
import { chartOptions } from '../../../src/extension/preview/chartCommand';
import { imageBytes, imageFormatOf, writeWhole } from '../../../src/extension/preview/chartFile';

function refusal(arg: Record<string, unknown>): DqError {
  try {
    chartOptions(arg);
  } catch (err) {
    assert.ok(err instanceof DqError, String(err));
    return err;
  }
  return assert.fail('expected a refusal');
}

const COLUMNS: ResultColumn[] = [
  { name: 'key.id', type: 'string', sqlType: 'VARCHAR', key: true },
  { name: 'value.timestamp', type: 'date-time', sqlType: 'TIMESTAMP WITH TIME ZONE' },
  { name: 'value.http_status', type: 'int32', sqlType: 'INTEGER' },
  { name: 'value.duration_ms', type: 'number', sqlType: 'DOUBLE' },
  { name: 'value.participated', type: 'boolean', sqlType: 'BOOLEAN' },
  { name: 'value.price', type: 'decimal', sqlType: 'DECIMAL(18,3)' },
];

function specRefusal(spec: Parameters<typeof checkChart>[0]): string {
  try {
    checkChart(spec, COLUMNS);
  } catch (err) {
    assert.ok(err instanceof ChartSpecError, String(err));
    return err.message;
  }
  return assert.fail('expected a refusal');
}

describe('dataQuery.chartResult arguments', () => {
  it('takes a kind, x, y, colour and an .svg or .png path', () => {
    assert.deepEqual(chartOptions({ connection: 'c', jobId: 'j', kind: 'bar', x: 'value.http_status' }), { spec: { kind: 'bar', x: 'value.http_status' } });
    assert.deepEqual(chartOptions({ paths: ['/a.parquet'], kind: 'line', x: 't', y: 'v', color: 'g', path: '/out/Chart.SVG' }), {
      spec: { kind: 'line', x: 't', y: 'v', color: 'g' },
      path: '/out/Chart.SVG',
    });
    assert.equal(chartOptions({ kind: 'scatter', x: 'a', y: 'b', path: 'c.png' }).path, 'c.png');
  });

  it('refuses a kind that is not one, naming the kinds', () => {
    for (const kind of ['pie', undefined, 3, 'Bar']) {
      const err = refusal({ kind, x: 'a' });
      assert.equal(err.kind, 'usage');
      assert.match(err.message, kind === undefined ? /The chart has no "kind"\./ : /is not a kind of chart\./);
      assert.equal(err.hint, 'Pass kind as one of: bar, line, area, scatter, histogram.');
    }
  });

  it('refuses columns that are not names, a path that is not an image file, and paths that are not files', () => {
    assert.match(refusal({ kind: 'bar' }).message, /The chart's "x" is not a column name\./);
    assert.match(refusal({ kind: 'bar', x: '  ' }).message, /"x" is not a column name/);
    assert.match(refusal({ kind: 'bar', x: 'a', y: 4 }).message, /"y" is not a column name/);
    assert.match(refusal({ kind: 'bar', x: 'a', color: ['g'] }).hint ?? '', /or leave it out/);
    for (const file of ['chart.jpg', 'chart', 7]) assert.match(refusal({ kind: 'bar', x: 'a', path: file }).message, /"path" is not an \.svg or \.png file/);
    assert.match(refusal({ kind: 'bar', x: 'a', paths: '/a.parquet' }).message, /"paths" is not a list of result files/);
  });
});

describe('a chart\'s columns', () => {
  it('takes the columns that fit each part', () => {
    assert.deepEqual(checkChart({ kind: 'bar', x: 'key.id', y: 'value.price', color: 'value.participated' }, COLUMNS), {
      kind: 'bar',
      x: COLUMNS[0],
      y: COLUMNS[5],
      color: COLUMNS[4],
    });
    assert.deepEqual(checkChart({ kind: 'histogram', x: 'value.timestamp' }, COLUMNS), { kind: 'histogram', x: COLUMNS[1] });
    assert.equal(checkChart({ kind: 'scatter', x: 'key.id', y: 'value.http_status' }, COLUMNS).x, COLUMNS[0], 'text is read as numbers where numbers are needed');
  });

  it('refuses a column the result does not have, or one that does not fit, naming the choices', () => {
    assert.equal(specRefusal({ kind: 'bar', x: 'nope' }), 'The result has no column "nope". Its columns: key.id, value.timestamp, value.http_status, value.duration_ms, value.participated, value.price.');
    assert.equal(
      specRefusal({ kind: 'line', x: 'value.timestamp', y: 'value.timestamp' }),
      'The y of a line chart must be a column of numbers (or text read as numbers): "value.timestamp" is date-time. Columns that fit: key.id, value.http_status, value.duration_ms, value.price.',
    );
    assert.match(specRefusal({ kind: 'histogram', x: 'value.participated' }), /^The x of a histogram chart must be a column of numbers, times or text read as numbers: "value\.participated" is boolean\. Columns that fit: key\.id, value\.timestamp, /);
    assert.match(specRefusal({ kind: 'scatter', x: 'value.http_status' }), /^A scatter chart needs a column for y\. Columns that fit: key\.id, value\.http_status, value\.duration_ms, value\.price\.$/);
    assert.match(specRefusal({ kind: 'donut' as 'bar', x: 'key.id' }), /^"donut" is not a kind of chart\. Choose one of: bar, line, area, scatter, histogram\.$/);
  });

  it('starts with a histogram of the first time or number column, else bars of the first column', () => {
    assert.deepEqual(firstChart(COLUMNS), { kind: 'histogram', x: 'value.timestamp' });
    assert.deepEqual(firstChart([COLUMNS[2], COLUMNS[0]]), { kind: 'histogram', x: 'value.http_status' });
    assert.deepEqual(firstChart([COLUMNS[0], COLUMNS[4]]), { kind: 'bar', x: 'key.id' });
    assert.equal(firstChart([]), undefined);
  });

  it('keeps x and y when the kind changes while they fit it, else takes the first columns of numbers or times', () => {
    assert.equal(keptColumn('bar', 'x', COLUMNS, 'key.id'), 'key.id');
    assert.equal(keptColumn('histogram', 'x', COLUMNS, 'key.id'), 'value.timestamp', 'a histogram of text only when nothing else holds numbers');
    assert.equal(keptColumn('histogram', 'x', [COLUMNS[0]], 'key.id'), 'key.id');
    assert.equal(keptColumn('scatter', 'y', COLUMNS, undefined), 'value.http_status', 'a scatter chart needs a y');
    assert.equal(keptColumn('line', 'y', COLUMNS, undefined), undefined, 'rows counted stays so');
    assert.equal(keptColumn('line', 'y', COLUMNS, 'value.duration_ms'), 'value.duration_ms');
  });
});

describe('a chart\'s image file', () => {
  let dir = '';
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-chart-file-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('names its format by its extension', () => {
    assert.deepEqual(['a.svg', 'b.PNG', 'c.jpeg', 'svg'].map(imageFormatOf), ['svg', 'png', undefined, undefined]);
  });

  it('takes an SVG document or a PNG image, and refuses anything else', () => {
    assert.equal(imageBytes('svg', '<svg width="1"><rect/></svg>\n').toString(), '<svg width="1"><rect/></svg>\n');
    assert.deepEqual(imageBytes('png', PNG.toString('base64')), PNG);
    assert.throws(() => imageBytes('svg', '<html></html>'), /did not come back as an SVG document; nothing was written/);
    assert.throws(() => imageBytes('png', Buffer.from('GIF89a-not-a-png').toString('base64')), /did not come back as a PNG image/);
  });

  it('writes the whole file, and on failure leaves neither a part of it nor harm to the file there', async () => {
    const file = path.join(dir, 'chart.svg');
    await fs.writeFile(file, 'before');
    await writeWhole(file, Buffer.from('<svg></svg>'));
    assert.equal(await fs.readFile(file, 'utf8'), '<svg></svg>');
    const missing = path.join(dir, 'no folder', 'chart.svg');
    await assert.rejects(writeWhole(missing, Buffer.from('<svg></svg>')), (err: DqError) => err.kind === 'io' && err.message.startsWith(`The chart could not be saved to ${missing}: `));
    // a folder in the way of the rename: the write fails after the bytes were written beside it
    const blocked = path.join(dir, 'blocked.svg');
    await fs.mkdir(path.join(blocked, 'inside'), { recursive: true });
    await assert.rejects(writeWhole(blocked, Buffer.from('<svg></svg>')), /could not be saved/);
    assert.deepEqual((await fs.readdir(dir)).sort(), ['blocked.svg', 'chart.svg'], 'no file left beside them');
  });
});
