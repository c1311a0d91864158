import * as assert from 'node:assert/strict';
import { suggestSql, type ConsoleView } from '../../../src/extension/preview/sqlCompletion';

const column = (name: string, type = 'string'): ConsoleView['columns'][number] => ({ name, type, sqlType: 'VARCHAR' });
const views: ConsoleView[] = [
  { name: 'canvas.users', columns: [column('key.id', 'int64'), column('value.name'), column('meta.action')] },
  { name: 'canvas.users__6f2a9c01', columns: [column('key.id', 'int64')] },
  { name: 'catalog.courses', columns: [column('title')] },
];

describe('SQL console completion', () => {
  it('offers a namespace\'s tables after "<namespace>."', () => {
    const labels = suggestSql('SELECT * FROM canvas.', 'SELECT * FROM canvas.', views).map((s) => s.label);
    assert.deepEqual(labels, ['users', 'users__6f2a9c01']);
  });

  it('offers a view\'s columns after "<view>.", quoting dotted names', () => {
    const suggestions = suggestSql('SELECT canvas.users.', 'SELECT canvas.users. FROM canvas.users', views);
    assert.deepEqual(
      suggestions.map((s) => [s.label, s.insertText, s.detail]),
      [
        ['key.id', '"key.id"', 'int64'],
        ['value.name', '"value.name"', 'string'],
        ['meta.action', '"meta.action"', 'string'],
      ],
    );
  });

  it('offers namespaces, every view and the columns of the views the statement reads', () => {
    const suggestions = suggestSql('SELECT ', 'SELECT  FROM catalog.courses', views);
    assert.deepEqual(
      suggestions.map((s) => `${s.kind}:${s.insertText}`),
      ['namespace:canvas', 'namespace:catalog', 'view:canvas.users', 'view:canvas.users__6f2a9c01', 'view:catalog.courses', 'column:title'],
    );
  });
});
