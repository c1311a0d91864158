// The argument objects of Add Connection and Set Credentials, checked before anything is
// asked or sent.
import * as assert from 'node:assert/strict';
import { checkAddConnectionArgs, checkCredentialArgs, connectionNameArg } from '../../../src/extension/connections/connectionArgs';
import type { Connection } from '../../../src/extension/connections/connectionConfig';

describe('connection argument objects', () => {
  const good = { name: ' Prod ', baseUrl: 'https://api.example.com', clientId: ' id ', clientSecret: 'secret' };

  it('turns an Add Connection object into the connection and its credentials, the name and ID trimmed', () => {
    const { connection, credentials } = checkAddConnectionArgs({ ...good, namespaces: ['canvas'] }, []);
    assert.equal(connection.name, 'Prod');
    assert.equal(connection.baseUrl, 'https://api.example.com');
    assert.deepEqual(connection.namespaces, ['canvas']);
    assert.deepEqual(credentials, { clientId: 'id', clientSecret: 'secret' });
  });

  it('says which part of an Add Connection object it cannot use', () => {
    assert.throws(() => checkAddConnectionArgs('Prod', []), /pass an object \{name, baseUrl/);
    assert.throws(() => checkAddConnectionArgs({ ...good, name: ' ' }, []), /pass a "name"/);
    assert.throws(() => checkAddConnectionArgs(good, ['Prod']), /"Prod" already exists/);
    assert.throws(() => checkAddConnectionArgs({ ...good, baseUrl: 'ftp://example.com' }, []), /https:\/\//);
    assert.throws(() => checkAddConnectionArgs({ ...good, clientSecret: ' ' }, []), /"clientId" and "clientSecret"/);
    assert.throws(() => checkAddConnectionArgs({ ...good, baseUrl: 'http://example.com' }, []), (err: Error) => /Refusing plain http/.test(err.message) && /allowInsecureHttp: true/.test(err.message));
    assert.equal(checkAddConnectionArgs({ ...good, baseUrl: 'http://example.com', allowInsecureHttp: true }, []).connection.allowInsecureHttp, true);
  });

  it('finds the remote connection a Set Credentials object names', () => {
    const connections: Connection[] = [{ kind: 'sample', name: 'Sample data' }, ...[checkAddConnectionArgs(good, []).connection]];
    const { connection, credentials } = checkCredentialArgs({ connection: 'Prod ', clientId: ' id ', clientSecret: 's' }, connections);
    assert.equal(connection.name, 'Prod');
    assert.deepEqual(credentials, { clientId: 'id', clientSecret: 's' });
    assert.throws(() => checkCredentialArgs({ connection: 'Sample data', clientId: 'id', clientSecret: 's' }, connections), /no connection to a service named "Sample data"/);
    assert.throws(() => checkCredentialArgs({ connection: 'Prod', clientId: 'id' }, connections), /"clientId" and "clientSecret"/);
    assert.throws(() => checkCredentialArgs({}, connections), /\{connection, clientId, clientSecret\}/);
  });

  it('reads the connection an Edit Connection object names', () => {
    assert.equal(connectionNameArg({ connection: ' Prod ' }), 'Prod');
    assert.throws(() => connectionNameArg({ name: 'Prod' }), /\{connection\}/);
  });
});
