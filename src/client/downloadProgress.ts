// What a download run has received so far, per object and in all, and the progress events a
// caller listens to. A listener's failure never breaks the download.

import type { DownloadProgress } from './types';

export class RunProgress {
  private readonly received = new Map<string, number>();
  /** each object's size, once an answer's Content-Length or Content-Range has told it */
  private readonly totals = new Map<string, number>();
  private allBytes = 0;
  private doneObjects = 0;

  constructor(
    readonly totalObjects: number,
    private readonly emit?: (p: DownloadProgress) => void,
  ) {}

  /** Sets how much of an object is in, without an event. */
  setReceived(objectId: string, bytes: number): void {
    this.allBytes += bytes - (this.received.get(objectId) ?? 0);
    this.received.set(objectId, bytes);
  }

  setTotal(objectId: string, total: number): void {
    this.totals.set(objectId, total);
  }

  /** Sets how much of an object is in, and tells the listener. */
  bytesIn(objectId: string, bytes: number): void {
    this.setReceived(objectId, bytes);
    this.report(objectId);
  }

  /** An object is all in and its staging file closed; tells the listener. */
  objectDone(objectId: string): void {
    this.doneObjects++;
    this.report(objectId);
  }

  private report(objectId: string): void {
    if (!this.emit) return;
    try {
      this.emit({
        objectId,
        bytes: this.received.get(objectId) ?? 0,
        total: this.totals.get(objectId),
        doneObjects: this.doneObjects,
        totalObjects: this.totalObjects,
        allBytes: this.allBytes,
      });
    } catch {
      /* a progress listener's failure must not break the download */
    }
  }
}
