// Runs the bundled emulator inside the extension host for sample connections: started on
// first use (expanding the sample connection), shared by all of them, closed on shutdown.

import type { Logger } from '../../core/logger';

/** The parts of a running emulator that a sample connection needs. */
export interface SampleEmulator {
  baseUrl: string;
  dataPrefix: string;
  clientId: string;
  clientSecret: string;
  namespaces: string[];
  close(): Promise<void>;
}

export class SampleEmulatorHost {
  private running: Promise<SampleEmulator> | undefined;
  private disposed = false;

  constructor(
    private readonly start: () => Promise<SampleEmulator>,
    private readonly logger: Logger,
  ) {}

  /** The running emulator; starts it once. A failed start is retried on the next call. */
  get(): Promise<SampleEmulator> {
    if (this.disposed) return Promise.reject(new Error('The extension is shutting down.'));
    if (!this.running) {
      this.logger.info('Starting the local sample-data emulator.');
      const starting = this.start().then(
        (emulator) => {
          this.logger.info(`Sample-data emulator listening on ${emulator.baseUrl}.`);
          return emulator;
        },
        (err: unknown) => {
          this.running = undefined;
          this.logger.error(`The sample-data emulator did not start: ${err instanceof Error ? err.message : String(err)}`);
          throw err;
        },
      );
      this.running = starting;
    }
    return this.running;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    try {
      await (await running).close();
      this.logger.info('Sample-data emulator stopped.');
    } catch {
      // it never started; nothing to stop
    }
  }
}
