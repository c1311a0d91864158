// A stand-in for the `vscode` module, so plain-Node tests can load code of src/extension and
// answer it as a person would: input boxes and quick picks driven by the test
// (fakeQuickInputs.ts), information, warning and error messages answered by a script, progress
// notifications with a cancellation token, user settings in memory with their change event, and
// EventEmitter. Importing this module makes `require('vscode')` return the stand-in: import it
// before the modules under test. `resetFakeVscode()` starts each test afresh.

import Module from 'node:module';
import { FakeQuickInputs, type ButtonLike } from './fakeQuickInputs';

type Listener<T> = (value: T) => unknown;

class Disposable {
  constructor(private readonly release: () => void) {}

  dispose(): void {
    this.release();
  }
}

class EventEmitter<T> {
  private readonly listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>, thisArg?: unknown, disposables?: Disposable[]): Disposable => {
    const bound: Listener<T> = (value) => listener.call(thisArg, value);
    this.listeners.add(bound);
    const disposable = new Disposable(() => this.listeners.delete(bound));
    disposables?.push(disposable);
    return disposable;
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  dispose(): void {
    this.listeners.clear();
  }
}

/** A message the code showed, with the buttons it offered. */
export interface ShownMessage {
  severity: 'information' | 'warning' | 'error';
  message: string;
  detail?: string;
  modal: boolean;
  choices: string[];
}

const BACK: ButtonLike = { tooltip: 'Back' };

const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 } as const;
const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 } as const;

/** The user settings, in memory; values go through JSON as they would through settings.json. */
class FakeSettings {
  readonly values = new Map<string, string>();
  readonly changed = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();

  get(name: string): unknown {
    const raw = this.values.get(name);
    return raw === undefined ? undefined : JSON.parse(raw);
  }

  configuration(section?: string) {
    const key = (name: string): string => (section ? `${section}.${name}` : name);
    return {
      get: <T>(name: string, fallback?: T): T | undefined => (this.values.has(key(name)) ? (this.get(key(name)) as T) : fallback),
      has: (name: string): boolean => this.values.has(key(name)),
      inspect: <T>(name: string) => ({ key: key(name), globalValue: this.get(key(name)) as T | undefined }),
      update: async (name: string, value: unknown): Promise<void> => {
        const full = key(name);
        if (value === undefined) this.values.delete(full);
        else this.values.set(full, JSON.stringify(value));
        this.changed.fire({ affectsConfiguration: (s: string) => full === s || full.startsWith(`${s}.`) || s.startsWith(`${full}.`) });
      },
    };
  }
}

/** What a test sees of, and answers in, the fake window. */
export interface FakeVscodeState {
  quickInputs: FakeQuickInputs;
  messages: ShownMessage[];
  /** answers each message shown; undefined dismisses it */
  answerMessage: (message: ShownMessage) => string | undefined;
  settings: FakeSettings;
  /** titles of the progress notifications shown */
  progress: string[];
}

export const fakeVscode: FakeVscodeState = fresh();

function fresh(): FakeVscodeState {
  return { quickInputs: new FakeQuickInputs(BACK), messages: [], answerMessage: () => undefined, settings: new FakeSettings(), progress: [] };
}

/** Forgets the last test's widgets, messages and settings. */
export function resetFakeVscode(): void {
  Object.assign(fakeVscode, fresh());
}

function showMessage(severity: ShownMessage['severity']) {
  return async (message: string, ...rest: unknown[]): Promise<string | undefined> => {
    const options = typeof rest[0] === 'object' && rest[0] !== null ? (rest.shift() as { modal?: boolean; detail?: string }) : {};
    const shown: ShownMessage = { severity, message, detail: options.detail, modal: options.modal === true, choices: rest.map(String) };
    fakeVscode.messages.push(shown);
    return fakeVscode.answerMessage(shown);
  };
}

const api = {
  Disposable,
  EventEmitter,
  ConfigurationTarget,
  ProgressLocation,
  QuickInputButtons: { Back: BACK },
  window: {
    createInputBox: () => fakeVscode.quickInputs.createInputBox(),
    createQuickPick: () => fakeVscode.quickInputs.createQuickPick(),
    showInformationMessage: showMessage('information'),
    showWarningMessage: showMessage('warning'),
    showErrorMessage: showMessage('error'),
    withProgress: async <R>(options: { title?: string }, task: (progress: { report(value: unknown): void }, token: unknown) => Promise<R>): Promise<R> => {
      fakeVscode.progress.push(options.title ?? '');
      const cancelled = new EventEmitter<void>();
      return task({ report: () => undefined }, { isCancellationRequested: false, onCancellationRequested: cancelled.event });
    },
  },
  workspace: {
    getConfiguration: (section?: string) => fakeVscode.settings.configuration(section),
    onDidChangeConfiguration: (listener: Listener<{ affectsConfiguration(section: string): boolean }>) => fakeVscode.settings.changed.event(listener),
  },
};

const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
const load = loader._load;
loader._load = function (request: string, parent: unknown, isMain: boolean): unknown {
  return request === 'vscode' ? api : load.call(this, request, parent, isMain);
};
