// Whether a sync may connect to the PostgreSQL or MySQL server (or the s3:// object store) the target setting names. A value
// from a workspace's settings (.vscode/settings.json, a .code-workspace file) comes with the
// folder or repository that was opened, and a sync signs in to the server it names with the
// user's PGPASSWORD or ~/.pgpass (MYSQL_PWD or ~/.my.cnf, the AWS credential chain) and writes the data there. So the first sync to such a server asks,
// naming it (never its password), and the answer is remembered per target URL in the
// extension's global state: asked once. Values from user settings, DuckDB files and the local
// database ask nothing. A run by argument object asks nothing either: it is refused until the
// server has been allowed. Pure: the memory, the question and the setting's origin are handed in.

import { DqError } from '../../client/errors';
import { isLocalServer } from '../../sync/postgresTls';
import { isLocalMysqlServer } from '../../sync/mysqlTls';
import { readMysqlUrl } from '../../sync/mysqlUrl';
import { postgresUrlLabel, readPostgresUrl } from '../../sync/postgresUrl';
import { SYNC_TARGET_SETTING, type SyncTargetChoice } from './syncTargetSetting';

/** Where the setting's effective value comes from. */
export type SettingOrigin = 'default' | 'user' | 'workspace' | 'workspaceFolder';

/** The parts of `WorkspaceConfiguration.inspect()` that tell where a value comes from. */
export interface InspectedSetting {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The most specific place that sets a value (folder, then workspace, then user). */
export function settingOrigin(inspected: InspectedSetting | undefined): SettingOrigin {
  if (inspected?.workspaceFolderValue !== undefined) return 'workspaceFolder';
  if (inspected?.workspaceValue !== undefined) return 'workspace';
  if (inspected?.globalValue !== undefined) return 'user';
  return 'default';
}

/** VS Code's globalState, or a map in tests. */
export interface ConsentMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export type ConsentAnswer = 'allow' | 'decline' | undefined;

/** What the modal shows: a question, the details, and the two answers (VS Code adds Cancel). */
export interface ConsentQuestion {
  message: string;
  detail: string;
  allow: string;
  decline: string;
}

export type ConsentState = 'notNeeded' | 'allowed' | 'declined' | 'unasked';

/** `details.problem` of the refusals, for callers that offer a way on. */
export type ConsentProblem = 'targetDeclined' | 'targetUnconfirmed';

const ANSWERS_KEY = 'dataQuery.sync.allowedTargets';

export class SyncTargetConsent {
  /** per target: the question on screen, so two syncs started together ask once */
  private readonly asking = new Map<string, Promise<void>>();

  constructor(
    private readonly memory: ConsentMemento,
    /** where the target setting's effective value comes from now */
    private readonly origin: () => SettingOrigin,
    /** PGSSLMODE of the environment the syncs run in (VS Code's) */
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  state(target: SyncTargetChoice): ConsentState {
    if (target.kind !== 'postgresql' && target.kind !== 'mysql' && target.kind !== 'lake') return 'notNeeded';
    const origin = this.origin();
    if (origin !== 'workspace' && origin !== 'workspaceFolder') return 'notNeeded';
    const answer = this.answers()[target.spec];
    return answer === 'allowed' ? 'allowed' : answer === 'declined' ? 'declined' : 'unasked';
  }

  /** True when a sync (or a reading of the meta table) may connect to the target now. */
  mayConnect(target: SyncTargetChoice): boolean {
    const state = this.state(target);
    return state === 'notNeeded' || state === 'allowed';
  }

  /**
   * Resolves when a sync may go on: at once when no question is needed or the target was
   * allowed; else asks with `ask` and remembers an answer (a dismissed question is not an
   * answer). Without `ask`, or after "decline", a usage DqError that says what to do; a
   * dismissed question is a `cancelled` one.
   */
  async confirm(target: SyncTargetChoice, ask?: (question: ConsentQuestion) => Thenable<ConsentAnswer>): Promise<void> {
    const state = this.state(target);
    if (state === 'notNeeded' || state === 'allowed') return;
    const label = this.label(target);
    if (state === 'declined') throw this.declined(label);
    if (!ask) {
      throw new DqError('usage', `${this.whose()} name the sync target ${label}, ${target.kind === 'lake' ? 'an object store' : `a ${this.server(target)} server`} not confirmed yet, and a sync by argument object asks nothing.`, {
        hint: `Run "Data Query: Sync Table" from the explorer or the palette once and confirm the ${target.kind === 'lake' ? 'store' : 'server'}, or set ${SYNC_TARGET_SETTING} in your user settings.`,
        details: { problem: 'targetUnconfirmed' satisfies ConsentProblem },
      });
    }
    const pending = this.asking.get(target.spec);
    if (pending) return pending;
    const question = this.question(target, label, ask);
    this.asking.set(target.spec, question);
    try {
      await question;
    } finally {
      this.asking.delete(target.spec);
    }
  }

  /** Forgets the answer for a target, so the next sync to it asks again. */
  async forget(target: SyncTargetChoice): Promise<void> {
    const answers = { ...this.answers() };
    delete answers[target.spec];
    await this.memory.update(ANSWERS_KEY, answers);
  }

  private async question(target: SyncTargetChoice, label: string, ask: (question: ConsentQuestion) => Thenable<ConsentAnswer>): Promise<void> {
    if (target.kind === 'lake') return this.questionForStore(target, label, ask);
    const mysql = target.kind === 'mysql';
    const plain = !this.unencrypted(target)
      ? ''
      : mysql
        ? ' The URL says ssl-mode=DISABLED: the password and the data travel unencrypted.'
        : ' The URL (or PGSSLMODE) says sslmode=disable: the password and the data travel unencrypted.';
    const answer = await ask({
      message: `Sync to the ${this.server(target)} server ${label}?`,
      detail:
        `${this.whose()} set ${SYNC_TARGET_SETTING} to ${label}. A sync signs in there with your ${this.server(target)} password ` +
        `(${mysql ? 'MYSQL_PWD or ~/.my.cnf' : 'PGPASSWORD or ~/.pgpass'}) and writes the synced tables there.${plain} Allow it only for a server you know. ` +
        'The answer is remembered for this URL.',
      allow: 'Sync to This Server',
      decline: "Don't Sync",
    });
    if (answer === undefined) throw new DqError('cancelled', `The sync to ${label} was not started: the server was not confirmed.`);
    await this.memory.update(ANSWERS_KEY, { ...this.answers(), [target.spec]: answer === 'allow' ? 'allowed' : 'declined' });
    if (answer === 'decline') throw this.declined(label);
  }

  private async questionForStore(target: SyncTargetChoice, label: string, ask: (question: ConsentQuestion) => Thenable<ConsentAnswer>): Promise<void> {
    const answer = await ask({
      message: `Sync to the object store ${label}?`,
      detail:
        `${this.whose()} set ${SYNC_TARGET_SETTING} to ${label}. A sync signs in there with your AWS credentials ` +
        '(AWS_PROFILE, AWS_ACCESS_KEY_ID or ~/.aws) and writes the synced tables there as Parquet files. Allow it only for a bucket you know. ' +
        'The answer is remembered for this URL.',
      allow: 'Sync to This Bucket',
      decline: "Don't Sync",
    });
    if (answer === undefined) throw new DqError('cancelled', `The sync to ${label} was not started: the bucket was not confirmed.`);
    await this.memory.update(ANSWERS_KEY, { ...this.answers(), [target.spec]: answer === 'allow' ? 'allowed' : 'declined' });
    if (answer === 'decline') throw this.declined(label);
  }

  private declined(label: string): DqError {
    return new DqError('usage', `You chose not to sync to ${label}, which ${this.whose().toLowerCase()} name in ${SYNC_TARGET_SETTING}.`, {
      hint: 'Change or remove the setting in the workspace settings (.vscode/settings.json) to sync elsewhere, or ask again to allow this server.',
      details: { problem: 'targetDeclined' satisfies ConsentProblem },
    });
  }

  private whose(): string {
    return this.origin() === 'workspaceFolder' ? "The workspace folder's settings" : "This workspace's settings";
  }

  /** The URL as the question shows it: every part that decides where the data goes (host= too), no password. */
  private label(target: SyncTargetChoice): string {
    try {
      if (target.kind === 'lake') return target.label;
      if (target.kind === 'mysql') return readMysqlUrl(target.spec).label;
      return postgresUrlLabel(readPostgresUrl(target.spec));
    } catch {
      return target.label;
    }
  }

  private server(target: SyncTargetChoice): string {
    return target.kind === 'mysql' ? 'MySQL' : 'PostgreSQL';
  }

  private unencrypted(target: SyncTargetChoice): boolean {
    const spec = target.spec;
    if (target.kind === 'lake') return false;
    if (target.kind === 'mysql') {
      try {
        const url = readMysqlUrl(spec);
        return url.params['ssl-mode']?.trim().toUpperCase() === 'DISABLED' && !isLocalMysqlServer(url);
      } catch {
        return false;
      }
    }
    let url: URL;
    try {
      url = readPostgresUrl(spec);
    } catch {
      return false;
    }
    const mode = url.searchParams.get('sslmode') ?? this.env.PGSSLMODE;
    const host = url.searchParams.get('host') || decodeURIComponent(url.hostname);
    return mode?.trim().toLowerCase() === 'disable' && !isLocalServer(host, this.env);
  }

  private answers(): Record<string, 'allowed' | 'declined'> {
    const stored = this.memory.get<unknown>(ANSWERS_KEY);
    return typeof stored === 'object' && stored !== null ? (stored as Record<string, 'allowed' | 'declined'>) : {};
  }
}
