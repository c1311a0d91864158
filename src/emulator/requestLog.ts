// A record of every request the emulator answered, for tests and for the CLI's verbose mode.
// Paths are stored without their query string, so pre-signed URL signatures never land here.

import type { Operation } from '../core/contract';

export interface RequestLogEntry {
  time: number;
  host: 'gateway' | 'object';
  method: string;
  path: string;
  operation?: Operation | 'token' | 'object';
  status: number;
  auth: 'authorization' | 'x-svcauth' | 'both' | 'none';
  /** any Authorization, x-svcauth or Cookie header reached the object host */
  credentialOnObjectUrl: boolean;
  clientId?: string;
}

export class RequestLog {
  private readonly items: RequestLogEntry[] = [];

  constructor(private readonly max = 10_000) {}

  add(entry: RequestLogEntry): void {
    this.items.push(entry);
    if (this.items.length > this.max) this.items.splice(0, this.items.length - this.max);
  }

  entries(): RequestLogEntry[] {
    return this.items.map((e) => ({ ...e }));
  }

  clear(): void {
    this.items.length = 0;
  }
}
