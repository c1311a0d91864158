// Work that must run one at a time, in the order it was asked for: each task starts once every
// earlier one has settled, whether it succeeded or failed, and a failure reaches only its own
// caller.

export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every earlier one has settled; settles as `task` does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Settles once every task asked for so far has settled. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
