import * as assert from 'node:assert/strict';
import { partsOf } from '../../../src/engine/resultQueries';

describe('engine: where a window of rows lies in the result files', () => {
  it('finds a window inside one file, at its place in that file', () => {
    assert.deepEqual(partsOf([100, 50, 80], 120, 20), [{ file: 1, start: 100, from: 20, rows: 20 }]);
  });

  it('splits a window across files, over an empty file and a short one, in their order', () => {
    assert.deepEqual(partsOf([10, 0, 3, 40], 8, 10), [
      { file: 0, start: 0, from: 8, rows: 2 },
      { file: 2, start: 10, from: 0, rows: 3 },
      { file: 3, start: 13, from: 0, rows: 5 },
    ]);
  });

  it('ends with the last row, and finds nothing past it', () => {
    assert.deepEqual(partsOf([10, 5], 12, 200), [{ file: 1, start: 10, from: 2, rows: 3 }]);
    assert.deepEqual(partsOf([10, 5], 15, 200), []);
  });

  it('does not guess where rows lie when a file before them has not been counted', () => {
    assert.equal(partsOf([10, undefined, 5], 12, 2), undefined);
    assert.deepEqual(partsOf([10, undefined, 5], 2, 3), [{ file: 0, start: 0, from: 2, rows: 3 }]);
    assert.equal(partsOf([10, 5, undefined], 12, 200), undefined);
  });
});
