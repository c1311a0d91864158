// Streams one result object (gzip JSONL, or plain JSONL) into the staging table with
// `COPY ... FROM STDIN`, decompressing as it reads: nothing uncompressed touches the disk
// and memory holds a few chunks and at most one line. Lines pass verbatim, except the escapes
// PostgreSQL cannot store (`\u0000`, a lone surrogate such as `\ud83d`): they are dropped; a
// line that is not a JSON record (one reading `\.` would end the COPY early) or is too long
// fails the file (see jsonEscapes.ts). The rows COPY staged must be the lines sent, one each,
// or the file fails. An abort or a bad file ends the COPY with CopyFail, so the session can
// roll back.

import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Client } from 'pg';
import { DqError } from '../client/errors';
import { from as copyFrom } from 'pg-copy-streams';
import { JsonEscapeFilter } from './jsonEscapes';
import { COPY_STAGE } from './postgresSql';
import { openResultFile } from './resultFileSource';

/**
 * Copies one file's records into the staging table of `table` (`canvas.users`, for messages);
 * returns how many lines it held.
 */
export async function copyFileToStage(client: Client, file: string, table: string, signal?: AbortSignal): Promise<number> {
  signal?.throwIfAborted();
  const { gzip, source } = await openResultFile(file);
  const copy = client.query(copyFrom(COPY_STAGE));
  const lines = new JsonEscapeFilter({ table, file });
  const stages: NodeJS.ReadWriteStream[] = gzip ? [createGunzip(), lines] : [lines];
  // a failure anywhere destroys the COPY stream, which sends CopyFail; the session's next
  // statement (the rollback) waits in the driver's queue until the server has answered it
  await pipeline([source, ...stages, copy], { signal });
  if (copy.rowCount !== lines.lines) {
    // a row lost or split would go unseen by every later step: the whole run fails instead
    throw new DqError('invalidResponse', `PostgreSQL staged ${copy.rowCount} rows from ${lines.lines} lines of ${path.basename(file)}, a result file of ${table}, where each line is one row.`, {
      hint: 'The table keeps its last complete sync. Sync it again; if it fails the same way, report the table to the provider.',
    });
  }
  return copy.rowCount;
}
