// What the download tests stand on: a LoopbackService, a client pointed at it, an empty
// folder to download into, and objects of known bytes.

import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataQueryClient } from '../../src/client/dataQueryClient';
import type { DataQueryClientOptions } from '../../src/client/types';
import type { JobRecord } from '../../src/core/contract';
import { LoopbackService } from './loopbackServer';

export interface DownloadBench {
  service: LoopbackService;
  client: DataQueryClient;
  /** an empty folder, removed by close() */
  dir: string;
  close(): Promise<void>;
}

export async function startDownloadBench(options: Partial<DataQueryClientOptions>): Promise<DownloadBench> {
  const service = await new LoopbackService().start();
  const client = new DataQueryClient({
    baseUrl: service.gatewayUrl,
    credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }),
    random: () => 0.5,
    ...options,
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-dl-'));
  return {
    service,
    client,
    dir,
    async close() {
      await client.close();
      await service.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** A complete job with these object ids. */
export function completeJob(...ids: string[]): JobRecord {
  return { id: 'job-1', status: 'complete', objects: ids.map((id) => ({ id })) };
}

export async function listDir(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).sort();
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Random-looking bytes so gzip cannot shrink them: big enough to cut mid-body. */
export function noise(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  let s = seed;
  for (let i = 0; i < size; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    b[i] = s >>> 24;
  }
  return b;
}
