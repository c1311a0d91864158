// A sync into a folder store in a process of its own, killed (SIGKILL, nothing cleaned up) just
// after its n-th write to the store when told: the emulator's address, credentials, the source
// to record, the store's folder, the work folder, the table, the point to sync to and n (0:
// never) come as arguments. Files are kept small, so a run writes several. It prints the
// number of writes it made when it ends.

import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { nullLogger } from '../../../src/core/logger';
import { LakeTarget } from '../../../src/sync/lakeTarget';
import { runSync } from '../../../src/sync/syncRunner';
import { FolderStore } from '../../support/folderStore';

async function main(): Promise<void> {
  const [baseUrl, dataPrefix, clientId, clientSecret, source, storeDir, workDir, namespace, table, until, killAt] = process.argv.slice(2);
  const client = new DataQueryClient({ baseUrl, dataPrefix, credentials: async () => ({ clientId, clientSecret }) });
  const store = new FolderStore(storeDir);
  let writes = 0;
  store.faults.afterWrite = async () => {
    if (++writes === Number(killAt)) process.kill(process.pid, 'SIGKILL');
  };
  const options = { url: `${store.root}/lake`, bucket: 'test-bucket', prefix: 'lake', label: `${store.root}/lake`, openStore: async () => store, logger: nullLogger, workDir };
  const target = new LakeTarget(options, { maxFileBytes: 64 * 1024 });
  await target.open();
  try {
    const [report] = await runSync({ client, target, source, namespace, tables: [table], until, workDir });
    process.stdout.write(`${report.outcome} after ${writes} writes\n`);
  } finally {
    await target.close();
    await client.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
