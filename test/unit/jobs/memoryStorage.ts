// A Map behind the KeyValueStorage interface, standing in for VS Code's workspaceState. Values
// go through JSON as they would on disk, so a "reload" (new stores over the same storage)
// sees only what was really saved.

import type { KeyValueStorage } from '../../../src/jobs/jobStore';

export class MemoryStorage implements KeyValueStorage {
  private readonly values = new Map<string, string>();

  get<T>(key: string): T | undefined {
    const raw = this.values.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.stringify(value));
    return Promise.resolve();
  }
}
