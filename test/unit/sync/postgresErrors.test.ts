// What a person reads when PostgreSQL ends the sync's session: a session closed as idle is a
// lost connection worth running again, named as such, and never shows the password.

import * as assert from 'node:assert/strict';
import { postgresError } from '../../../src/sync/postgresErrors';

const CONTEXT = { label: 'postgresql://etl@db.example.org/warehouse', doing: 'applying the changes of canvas.users', applying: true, password: 's3cret' };

/** An error shaped as the driver reports a server's error response. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('PostgreSQL errors', () => {
  it('a session the server closed as idle is a lost connection that names idle_session_timeout, and keeps the last run', () => {
    const err = postgresError(serverError('57P05', 'terminating connection due to idle-session timeout'), CONTEXT);
    assert.equal(err.kind, 'network');
    assert.match(err.message, /closed the session as idle \(idle_session_timeout\) while applying the changes of canvas\.users; the table keeps its last complete run\./);
    assert.match(err.hint ?? '', /Run the sync again/);
  });

  it('a server shutting down is a lost connection; an unknown failure stays a server error, with the password masked', () => {
    assert.equal(postgresError(serverError('57P01', 'terminating connection due to administrator command'), CONTEXT).kind, 'network');
    const other = postgresError(serverError('XX000', 'internal error near s3cret'), CONTEXT);
    assert.equal(other.kind, 'server');
    assert.ok(!other.describe().includes('s3cret'), other.describe());
  });

  it('a record that does not fit its column is reported for the provider, with no fresh snapshot offered: it would hold the record again', () => {
    for (const [code, message] of [
      ['22P02', 'invalid input syntax for type integer: "<truncated>"'],
      ['23502', 'null value in column "id" violates not-null constraint'],
    ]) {
      const err = postgresError(serverError(code, message), CONTEXT);
      assert.equal(err.kind, 'invalidResponse');
      assert.match(err.message, /the table keeps its last complete run\.$/);
      assert.equal(err.hint, 'Sync the table again; if it fails the same way, report the table and its schema version to the provider, with this message.');
    }
  });

  it('a TLS set-up that fails otherwise (a server that answers neither yes nor no to TLS, a broken handshake) gives the same advice, not the raw failure', () => {
    const connecting = { label: 'postgresql://etl@db.example.org/warehouse', doing: 'connecting', password: 's3cret' };
    for (const raw of [new Error('There was an error establishing an SSL connection'), serverError('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number')]) {
      const err = postgresError(raw, connecting);
      assert.equal(err.kind, 'network');
      assert.match(err.message, /^TLS could not be set up with PostgreSQL at postgresql:\/\/etl@db\.example\.org\/warehouse \(.+\) while connecting\.$/);
      assert.match(err.hint ?? '', /sslmode=require \(or no-verify\).*sslmode=disable/);
    }
  });
});
