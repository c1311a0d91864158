// A minimal event emitter whose `event` has the shape of a VS Code `Event`, so models below
// the extension layer can be listened to from views without importing `vscode`.

export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (value: T) => unknown) => Disposable;

export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => unknown>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch {
        /* one listener's failure must not stop the others */
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
