// The point each connection last reached on each table: the `at` of its latest snapshot or
// the `until` of its latest incremental, which the next incremental query starts from.
// Remembered across reloads in the same key-value storage as the jobs, under whose data it is
// (the connection's service and account, not only its name): a connection pointed elsewhere
// starts afresh rather than asking another account for changes since this one's point.

import type { KeyValueStorage } from './jobStore';

const POINTS_KEY = 'dataQuery.sincePoints';

export class SincePointStore {
  /** `whose` names the data a connection (by name) reaches now; the name itself by default */
  constructor(
    private readonly storage: KeyValueStorage,
    private readonly whose: (connection: string) => string = (connection) => connection,
  ) {}

  get(connection: string, namespace: string, table: string): string | undefined {
    return this.all()[this.key(connection, namespace, table)];
  }

  /** Records a point; an older one never replaces a newer one. */
  async record(connection: string, namespace: string, table: string, point: string): Promise<void> {
    const points = this.all();
    const k = this.key(connection, namespace, table);
    const known = points[k];
    if (known !== undefined && Date.parse(known) >= Date.parse(point)) return;
    await this.storage.update(POINTS_KEY, { ...points, [k]: point });
  }

  private key(connection: string, namespace: string, table: string): string {
    return JSON.stringify([this.whose(connection), namespace, table]);
  }

  private all(): Record<string, string> {
    const raw = this.storage.get<unknown>(POINTS_KEY);
    return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, string>) : {};
  }
}
