import * as assert from 'node:assert/strict';
import { takesAppliedText } from '../../../src/webview/viewInputs';

describe('grid WHERE and filter boxes when a view is applied', () => {
  it('keeps text typed but not applied when another column is sorted or filtered', () => {
    // the WHERE box holds a condition not applied yet; the view changes elsewhere
    assert.equal(takesAppliedText({ value: '"value.score" > 500', focused: false }, '', ''), false);
    // a filter typed, and the user is still in it
    assert.equal(takesAppliedText({ value: 'n2', focused: true }, '', ''), false);
  });

  it('puts back the applied text when the applied value changed (Cancel went back), but not into the box being edited', () => {
    // Escape in the WHERE box of a slow filter: the box held what was applied, so it goes back
    assert.equal(takesAppliedText({ value: 'slow', focused: true }, 'slow', ''), true);
    assert.equal(takesAppliedText({ value: 'slow', focused: false }, 'slow', ''), true);
    // the user typed on after applying: their text stays while they edit
    assert.equal(takesAppliedText({ value: 'slow AND more', focused: true }, 'slow', ''), false);
  });
});
