// The machine-wide rate budget of one account at one service: a small JSON ledger (see
// rateLedgerDoc.ts) that every process using those credentials reads and changes under a file
// lock (proper-lockfile: a lock folder whose time a live holder keeps fresh, so a lock left by
// a killed process goes stale after a few seconds and is taken over). The lock is held for one
// read-modify-write only, never while a call waits or runs; a process that finds the window
// full learns when the next slot opens and tries again then.
//
// Nothing here may stop the work: a ledger that is corrupt is replaced by a fresh one (one
// warning); a folder that cannot be written ends the sharing for this process, which then counts
// its own calls alone (one warning); a lock held past the bound lets that one call be counted
// alone. The lock's staleness runs on real file times, whatever clock the ledger's times use.

import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../core/clock';
import type { Operation } from '../core/contract';
import { nullLogger, type Logger } from '../core/logger';
import type { SharedBudget, SharedCounts, SharedTry } from './operationLimiter';
import {
  decideStart,
  emptyLedger,
  ledgerCounts,
  MAX_LEDGER_BYTES,
  MAX_SHARED_LIMIT,
  parseLedger,
  recordPause,
  serializeLedger,
  settleStart,
  type LedgerDoc,
} from './rateLedgerDoc';
import { rateLedgerFile } from './rateLedgerFolder';
import { errorCode } from './retryPolicy';
import { makeFolder } from '../core/makeFolder';

/** A lock folder untouched this long belongs to a process that is gone (or frozen). */
export const LEDGER_LOCK_STALE_MS = 6_000;
/** A live holder refreshes its lock this often (proper-lockfile's least). */
const LOCK_UPDATE_MS = 1_000;
/** The longest a change waits for the lock: past a stale lock's takeover, with room to spare. */
export const LEDGER_LOCK_WAIT_MS = 10_000;

export interface RateLedgerOptions {
  /** the folder of the ledgers (rateLedgerFolder) */
  folder: string;
  baseUrl: string;
  /** the account's client ID, read when the ledger is first used (never written in clear) */
  clientId: () => Promise<string>;
  clock: Clock;
  logger?: Logger;
  lockStaleMs?: number;
  lockWaitMs?: number;
}

type Change<T> = (doc: LedgerDoc, now: number) => { result: T; write: boolean };

interface Pending {
  change: Change<unknown>;
  resolve: (result: unknown) => void;
}

export class RateLedger implements SharedBudget {
  readonly maxLimit = MAX_SHARED_LIMIT;
  private readonly folder: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly lockStaleMs: number;
  private readonly lockWaitMs: number;
  /**
   * changes asked for while others are being made: the next round makes them all under one
   * lock, in order (the file lock orders rounds against other processes)
   */
  private pending: Pending[] = [];
  private flushing: Promise<void> | undefined;
  /** names this process's starts apart from every other's */
  private readonly tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private seq = 0;
  private file: string | undefined;
  private folderReady = false;
  /** the folder could not be written: this process counts alone from now on */
  private alone = false;
  private toldReplaced = false;
  private toldBusy = false;

  constructor(private readonly options: RateLedgerOptions) {
    this.folder = options.folder;
    this.clock = options.clock;
    this.logger = options.logger ?? nullLogger;
    this.lockStaleMs = options.lockStaleMs ?? LEDGER_LOCK_STALE_MS;
    this.lockWaitMs = options.lockWaitMs ?? LEDGER_LOCK_WAIT_MS;
  }

  /** True once the ledger could not be written and this process counts alone. */
  get countingAlone(): boolean {
    return this.alone;
  }

  tryStart(operation: Operation, limit: number, windowMs: number, wanted = 1): Promise<SharedTry> {
    if (limit > this.maxLimit) return Promise.resolve(undefined);
    const ids = Array.from({ length: Math.max(1, Math.min(wanted, limit)) }, () => `${this.tag}-${++this.seq}`);
    return this.change<SharedTry>((doc, now) => {
      const decision = decideStart(doc, operation, limit, windowMs, now, ids);
      return { result: decision, write: decision.granted };
    });
  }

  answered(operation: Operation, id: string, windowMs: number): void {
    void this.change((doc, now) => ({ result: undefined, write: settleStart(doc, operation, id, now, windowMs, true) }));
  }

  release(operation: Operation, id: string, windowMs: number): void {
    void this.change((doc, now) => ({ result: undefined, write: settleStart(doc, operation, id, now, windowMs, false) }));
  }

  pause(operation: Operation, until: number): void {
    void this.change((doc) => ({ result: undefined, write: recordPause(doc, operation, until) }));
  }

  /**
   * The ledger as it is now, read without the lock (a reader only ever sees a whole file), for
   * status displays; undefined when it is not shared (yet, or any more).
   */
  counts(windowMs: number): SharedCounts | undefined {
    if (this.alone) return undefined;
    const file = this.file;
    if (!file) return new Map();
    try {
      if (statSync(file).size > MAX_LEDGER_BYTES) return new Map();
      const parsed = parseLedger(readFileSync(file, 'utf8'), this.clock.now());
      return 'doc' in parsed ? ledgerCounts(parsed.doc, this.clock.now(), windowMs) : new Map();
    } catch {
      return new Map(); // not written yet, or being replaced: nothing counted in it
    }
  }

  /** Settles once every change asked for so far is written (or given up). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /**
   * Makes `change` on the ledger under its lock, with the others asked for meanwhile, and
   * writes the result when one asks to; undefined when it could not use the ledger (the caller
   * counts alone).
   */
  private change<T>(change: Change<T>): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve) => {
      this.pending.push({ change, resolve: resolve as (result: unknown) => void });
      this.flush();
    });
  }

  private flush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      while (this.pending.length > 0) {
        const round = this.pending;
        this.pending = [];
        const results = await this.makeRound(round.map((p) => p.change));
        round.forEach((p, i) => p.resolve(results?.[i]));
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.pending.length > 0) this.flush();
    });
  }

  /** One read-modify-write under the lock: each change's result, or undefined when the ledger could not be used. */
  private async makeRound(changes: Change<unknown>[]): Promise<unknown[] | undefined> {
    if (this.alone) return undefined;
    const file = await this.ledgerFile();
    if (!file || this.alone) return undefined;
    let unlock: () => Promise<void>;
    try {
      unlock = await this.lock(file);
    } catch (err) {
      this.lockFailed(err);
      return undefined;
    }
    try {
      const { doc, replaced } = await this.read(file);
      let write = replaced;
      const results = changes.map((change) => {
        const made = change(doc, this.clock.now());
        write ||= made.write;
        return made.result;
      });
      if (write) await this.write(file, doc);
      return results;
    } catch (err) {
      this.countAlone(err);
      return undefined;
    } finally {
      await unlock().catch((err: unknown) => this.logger.debug(`rate ledger: releasing its lock: ${describe(err)}`));
    }
  }

  /** The account's ledger file, its folder made; undefined when either cannot be had now. */
  private async ledgerFile(): Promise<string | undefined> {
    if (!this.file) {
      let clientId: string;
      try {
        clientId = await this.options.clientId();
      } catch (err) {
        // no credentials yet: the call fails at its sign-in; this one counts alone
        this.logger.debug(`rate ledger: the account is not known yet (${describe(err)})`);
        return undefined;
      }
      this.file = rateLedgerFile(this.folder, this.options.baseUrl, clientId);
    }
    if (!this.folderReady) {
      try {
        await makeFolder(this.folder, 0o700);
        this.folderReady = true;
        void sweepOldLedgers(this.folder);
      } catch (err) {
        this.countAlone(err);
        return undefined;
      }
    }
    return this.file;
  }

  /** The lock, waiting (on real time) while another process holds it, at most lockWaitMs. */
  private async lock(file: string): Promise<() => Promise<void>> {
    const lockfile = await loadLockfile();
    const deadline = Date.now() + this.lockWaitMs;
    let delay = 2;
    for (;;) {
      try {
        return await lockfile.lock(file, {
          stale: this.lockStaleMs,
          update: LOCK_UPDATE_MS,
          realpath: false,
          retries: 0,
          onCompromised: (err) => this.logger.debug(`rate ledger: its lock was taken over while held: ${describe(err)}`),
        });
      } catch (err) {
        const left = deadline - Date.now();
        if (errorCode(err) !== 'ELOCKED' || left <= 0) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, delay * (0.5 + Math.random()))));
        delay = Math.min(delay * 2, 100);
      }
    }
  }

  private lockFailed(err: unknown): void {
    if (errorCode(err) !== 'ELOCKED') {
      this.countAlone(err);
      return;
    }
    const text = `The shared rate budget in ${this.folder} stayed locked for over ${(this.lockWaitMs / 1000).toFixed(this.lockWaitMs < 10_000 ? 1 : 0)} s; this call was counted by this process alone.`;
    if (this.toldBusy) this.logger.debug(text);
    else this.logger.warn(text);
    this.toldBusy = true;
  }

  /** The ledger, or a fresh one when there is none or it cannot be trusted (said once). */
  private async read(file: string): Promise<{ doc: LedgerDoc; replaced: boolean }> {
    let text: string;
    try {
      const stat = await fs.stat(file);
      if (stat.size > MAX_LEDGER_BYTES) return this.replaced(file, `it is larger than ${MAX_LEDGER_BYTES} bytes`);
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return { doc: emptyLedger(), replaced: false };
      if (errorCode(err) === 'EISDIR') return this.replaced(file, 'it is a folder', true);
      throw err;
    }
    const parsed = parseLedger(text, this.clock.now());
    return 'doc' in parsed ? { doc: parsed.doc, replaced: false } : this.replaced(file, parsed.problem);
  }

  private async replaced(file: string, problem: string, removeFolder = false): Promise<{ doc: LedgerDoc; replaced: boolean }> {
    if (removeFolder) await fs.rm(file, { recursive: true, force: true });
    const text = `The shared rate budget ${file} could not be used (${problem}); it was replaced by a fresh one, which knows nothing of other processes' calls in the last minute.`;
    if (this.toldReplaced) this.logger.debug(text);
    else this.logger.warn(text);
    this.toldReplaced = true;
    return { doc: emptyLedger(), replaced: true };
  }

  /** Writes the whole ledger beside it, then renames it into place: readers never see half. */
  private async write(file: string, doc: LedgerDoc): Promise<void> {
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${this.tag}.tmp`);
    try {
      await fs.writeFile(temporary, serializeLedger(doc), { mode: 0o600 });
      await fs.rename(temporary, file);
    } catch (err) {
      await fs.rm(temporary, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** The folder cannot be used: one warning, then this process counts alone. */
  private countAlone(err: unknown): void {
    if (this.alone) return;
    this.alone = true;
    const code = errorCode(err);
    this.logger.warn(
      `Cannot keep the shared rate budget in ${this.folder} (${describe(err)}${code && !describe(err).includes(code) ? `, ${code}` : ''}); ` +
        'this process now counts its own calls alone, so other processes using the same credentials may meet HTTP 429. ' +
        'Make the folder writable, or set DQ_STATE_DIR to a folder you may write to.',
    );
  }
}

/** A ledger untouched this long holds no start of any window and no pause (pauses end within a day). */
export const LEDGER_UNUSED_MS = 24 * 3600_000;
const LEDGER_FILES = /^\.?rate-ledger-[0-9a-f]{32}\.json(\.lock|\..+\.tmp)?$/;
const swept = new Set<string>();

/**
 * Removes the ledgers of accounts and services unused for a day (a sample emulator has new
 * credentials each time it starts), with their leftover lock folders and temporary files; once
 * per folder and process, and quietly: nothing in use is that old.
 */
async function sweepOldLedgers(folder: string): Promise<void> {
  if (swept.has(folder)) return;
  swept.add(folder);
  try {
    const cutoff = Date.now() - LEDGER_UNUSED_MS;
    for (const name of await fs.readdir(folder)) {
      if (!LEDGER_FILES.test(name)) continue;
      const file = path.join(folder, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && stat.mtimeMs < cutoff) await fs.rm(file, { recursive: true, force: true }).catch(() => undefined);
    }
  } catch {
    /* a folder that cannot be listed has nothing to sweep */
  }
}

let signalsKept = false;

/**
 * proper-lockfile, loaded on first use. It removes its locks when the process exits through
 * signal-exit, which listens to many signals and, when it is their only listener, ends the
 * process on them. Node ignores SIGXFSZ, so that a write past the file-size limit (ulimit -f)
 * fails with EFBIG, which dq reports, instead of killing the process: a listener of our own
 * that does nothing keeps it that way.
 */
async function loadLockfile(): Promise<typeof import('proper-lockfile')> {
  const lockfile = await import('proper-lockfile');
  if (!signalsKept && process.platform !== 'win32') {
    signalsKept = true;
    process.on('SIGXFSZ', () => undefined);
  }
  return lockfile;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
