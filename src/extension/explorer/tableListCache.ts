// Table lists per connection and namespace, kept until refreshed: listing tables is
// allowed only a few times a minute. A failed listing is not kept, so a retry asks again.

export class TableListCache {
  private readonly lists = new Map<string, Promise<string[]>>();

  private static key(connection: string, namespace: string): string {
    return `${connection}\u0000${namespace}`;
  }

  get(connection: string, namespace: string, load: () => Promise<string[]>): Promise<string[]> {
    const key = TableListCache.key(connection, namespace);
    let list = this.lists.get(key);
    if (!list) {
      list = load();
      this.lists.set(key, list);
      list.catch(() => {
        if (this.lists.get(key) === list) this.lists.delete(key);
      });
    }
    return list;
  }

  /** Forgets one namespace, one connection (no namespace) or everything (no arguments). */
  clear(connection?: string, namespace?: string): void {
    if (connection === undefined) {
      this.lists.clear();
      return;
    }
    if (namespace !== undefined) {
      this.lists.delete(TableListCache.key(connection, namespace));
      return;
    }
    const prefix = `${connection}\u0000`;
    for (const key of [...this.lists.keys()]) if (key.startsWith(prefix)) this.lists.delete(key);
  }
}
