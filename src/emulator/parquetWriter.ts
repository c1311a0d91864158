// Writes change records as a Parquet file, one row group per batch, flushing each row group to
// disk so memory stays bounded however many rows there are. Columns are the flat dotted
// columns of the table (the same as CSV); nested values are JSON text.

import { closeSync, openSync, writeSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { flatValues, type FlatValue } from './recordFormats';
import type { ChangeRecord } from './sampleData/changeHistory';
import type { FlatColumn } from './sampleData/tableModel';

const BATCH_ROWS = 10_000;

type BasicType = 'INT32' | 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'STRING';

function parquetType(kind: FlatColumn['kind']): BasicType {
  switch (kind) {
    case 'int32':
      return 'INT32';
    case 'int64':
      return 'INT64';
    case 'number':
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    default:
      return 'STRING';
  }
}

export async function writeParquetFile(path: string, columns: FlatColumn[], records: Iterable<ChangeRecord>): Promise<void> {
  const { ByteWriter, ParquetWriter, schemaFromColumnData } = await import('hyparquet-writer');
  const types = columns.map((c) => parquetType(c.kind));
  const emptyColumns = (): { name: string; data: unknown[]; type: BasicType }[] =>
    columns.map((c, i) => ({ name: c.name, data: [], type: types[i] }));

  const fd = openSync(path, 'w');
  try {
    const writer = new ByteWriter(1 << 20);
    const flush = (): void => {
      if (writer.index > 0) writeSync(fd, new Uint8Array(writer.buffer, 0, writer.index));
      writer.index = 0;
    };
    // Flush after every row group and at the end; the writer keeps its running offset.
    (writer as unknown as { flush: () => void }).flush = flush;
    writer.finish = flush;
    const schema = schemaFromColumnData({ columnData: emptyColumns() as never });
    const pw = new ParquetWriter({ writer, schema, createdBy: 'dq-emulator' });
    let batch = emptyColumns();
    let rows = 0;
    const writeBatch = async (): Promise<void> => {
      await pw.write({ columnData: batch as never, rowGroupSize: rows });
      batch = emptyColumns();
      rows = 0;
      await yieldToLoop();
    };
    for (const record of records) {
      const values: FlatValue[] = flatValues(record, columns);
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        batch[i].data.push(v !== null && types[i] === 'INT64' ? BigInt(v as number) : v);
      }
      if (++rows >= BATCH_ROWS) await writeBatch();
    }
    if (rows > 0) await writeBatch();
    await pw.finish();
  } finally {
    closeSync(fd);
  }
}
