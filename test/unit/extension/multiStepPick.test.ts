// The multi-step helper that Query Table, Sync, Show Schema and Add Connection walk through:
// quick picks and input boxes in one walk, steps skipped by earlier answers skipped going Back
// too and left out of the counter, earlier answers shown again, Escape cancelling, and a list
// that fails to load failing the walk. VS Code is the plain-Node stand-in of fakeVscode.ts.

// first, so the module below loads the stand-in as `vscode`
import { fakeVscode, resetFakeVscode } from '../../support/fakeVscode';

import * as assert from 'node:assert/strict';
import { runPickSteps, type PickItem, type Step } from '../../../src/extension/ui/multiStepPick';

interface Draft {
  kind?: string;
  note?: string;
  format?: string;
}

const choice = (label: string, apply: (d: Draft) => void, isDefault = false): PickItem<Draft> => ({ label, apply, isDefault });

/** kind (a pick), then a note only for kind "custom" (a box), then the format (a pick, csv by default). */
const STEPS: Step<Draft>[] = [
  {
    placeholder: 'Kind',
    skip: (d) => d.kind !== undefined,
    items: async () => ['snapshot', 'custom'].map((k) => choice(k, (d) => (d.kind = k))),
  },
  {
    prompt: 'A note',
    skip: (d) => d.kind !== 'custom',
    value: () => 'first note',
    validate: (v) => (v.trim() ? undefined : 'Enter a note.'),
    apply: (d, v) => (d.note = v),
  },
  {
    placeholder: 'Format',
    items: async () => ['jsonl', 'csv'].map((f) => choice(f, (d) => (d.format = f), f === 'csv')),
  },
];

describe('Walking several steps', () => {
  beforeEach(() => resetFakeVscode());
  const ui = () => fakeVscode.quickInputs;

  it('skips a step that an earlier answer makes needless, going Back too, and counts only the steps shown', async () => {
    const walk = runPickSteps<Draft>('Query', {}, STEPS);
    const kind = await (await ui().nextPick()).loaded();
    assert.equal(kind.heading, 'Query (1/2)', 'no note is needed as far as is known');
    assert.equal(kind.hasBack, false);
    await kind.choose('snapshot');
    const format = await (await ui().nextPick()).loaded();
    assert.equal(format.heading, 'Query (2/2)', 'the note is not asked for a snapshot');
    format.back();

    const kindAgain = await (await ui().nextPick()).loaded();
    assert.equal(kindAgain.heading, 'Query (1/2)', 'Back went past the skipped note');
    assert.equal(kindAgain.activeItems[0]?.label, 'snapshot', 'the kind picked before');
    await kindAgain.choose('custom');
    const note = await ui().nextInput();
    assert.equal(note.heading, 'Query (2/3)');
    assert.equal(note.value, 'first note');
    note.enter('my note');
    const formatAgain = await (await ui().nextPick()).loaded();
    assert.equal(formatAgain.heading, 'Query (3/3)');
    assert.equal(formatAgain.activeItems[0]?.label, 'csv', 'the default');
    await formatAgain.choose('jsonl');
    assert.deepEqual(await walk, { kind: 'custom', note: 'my note', format: 'jsonl' });
  });

  it('skips steps already answered by the state it starts with, and the first step shown has no Back', async () => {
    const walk = runPickSteps<Draft>('Query', { kind: 'snapshot' }, STEPS);
    const format = await (await ui().nextPick()).loaded();
    assert.equal(format.heading, 'Query (1/1)');
    assert.equal(format.hasBack, false);
    await format.enter();
    assert.deepEqual(await walk, { kind: 'snapshot', format: 'csv' });
  });

  it('undoes an answer when going Back past its step', async () => {
    const walk = runPickSteps<Draft>('Query', {}, STEPS);
    await (await ui().nextPick()).choose('custom');
    (await ui().nextInput()).enter('a note');
    (await ui().nextPick()).back();
    (await ui().nextInput()).back();
    await (await ui().nextPick()).choose('snapshot');
    await (await ui().nextPick()).choose('jsonl');
    assert.deepEqual(await walk, { kind: 'snapshot', format: 'jsonl' }, 'no note from the custom kind given up');
  });

  it('resolves undefined on Escape, at any step', async () => {
    const walk = runPickSteps<Draft>('Query', {}, STEPS);
    await (await ui().nextPick()).choose('custom');
    (await ui().nextInput()).escape();
    assert.equal(await walk, undefined);
    assert.equal(ui().visible, undefined, 'nothing left on screen');
  });

  it('fails the walk when a list cannot be loaded', async () => {
    const failing: Step<Draft>[] = [{ placeholder: 'Kind', items: async () => Promise.reject(new Error('no connection yet')) }];
    await assert.rejects(runPickSteps<Draft>('Query', {}, failing), /no connection yet/);
    assert.equal(ui().visible, undefined, 'nothing left on screen');
  });
});
