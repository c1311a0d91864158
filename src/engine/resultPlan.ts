// How a result's files are read: the plan of sourcePlan.ts over the files as found
// (sourceFiles.ts), with the columns DuckDB describes, each file's own SELECT when the files
// read alike one by one, and the JSONL files whose windows are read as lines.

import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import type { ResultSource } from './engineProtocol';
import type { RunWork, Work } from './engineWork';
import type { LineWindows } from './openResult';
import type { FilesSql } from './resultStore';
import { inspectFiles } from './sourceFiles';
import { jsonlLines, planSource, readerCall, readsAlikeFileByFile, type FileColumn, type SourcePlan } from './sourcePlan';
import type { UnpackedFiles } from './unpackedFiles';

export type ResultPlan = SourcePlan & {
  unpacked: string[];
  perFile?: string[];
  /** with `perFile`: the SELECT of several files in a row, in their order (the copy's, a few files at a time) */
  filesSql?: FilesSql;
  lineWindows?: LineWindows;
  gzipFiles?: string[];
  fileCount: number;
};

/** The plan of `source`'s files; what it unpacked is let go of when it fails. */
export async function planResult(work: Work, source: ResultSource, unpacker: UnpackedFiles, run: RunWork): Promise<ResultPlan> {
  const files = await inspectFiles(source, unpacker);
  const options = { gzip: files.gzip, schema: source.schema };
  let reader = readerCall(files.format, files.paths, options);
  let described: FileColumn[] = [];
  try {
    if (files.format !== 'jsonl' || !source.schema) described = await run(work, (conn) => describe(conn, reader));
  } catch (err) {
    await unpacker.release(files.unpacked);
    throw err;
  }
  // without a schema, JSONL records' parts are read as JSON: their fields as text (sourcePlan.ts)
  if (files.format === 'jsonl' && !source.schema) reader = readerCall(files.format, files.paths, { ...options, jsonParts: described.map((c) => c.name) });
  const alike = readsAlikeFileByFile(files.format, source.schema);
  const filesSql = (first: number, end: number): string => planSource(files.format, readerCall(files.format, files.paths.slice(first, end), options), described, source.schema).sql;
  const perFile = alike ? files.paths.map((_, file) => filesSql(file, file + 1)) : undefined;
  const schema = source.schema;
  const lineWindows = files.format === 'jsonl' && schema ? { paths: files.paths, gzip: files.gzip, sql: jsonlLines(schema) } : undefined;
  const gzipFiles = files.gzip ? files.paths : undefined;
  return {
    ...planSource(files.format, reader, described, source.schema),
    unpacked: files.unpacked,
    perFile,
    filesSql: alike ? filesSql : undefined,
    lineWindows,
    gzipFiles,
    fileCount: files.paths.length,
  };
}

async function describe(conn: DuckDBConnection, reader: string): Promise<FileColumn[]> {
  const result = await conn.runAndReadAll(`SELECT * FROM ${reader} LIMIT 0`);
  const types = result.columnTypes();
  return result.columnNames().map((name, i) => fileColumn(name, types[i]));
}

function fileColumn(name: string, type: DuckDBType): FileColumn {
  const column: FileColumn = { name, sqlType: String(type) };
  if ('entryNames' in type && 'entryTypes' in type) column.fields = type.entryNames.map((n, i) => fileColumn(n, type.entryTypes[i]));
  return column;
}
