// A Map behind the SecretsLike interface, standing in for VS Code's SecretStorage; `values`
// shows what was stored.

import type { SecretsLike } from '../../../src/extension/connections/credentialVault';

export class MemorySecrets implements SecretsLike {
  readonly values = new Map<string, string>();

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }

  store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }
}
