// Walks a person through several steps, each a quick pick (connection > namespace > table >
// ...) or an input box (a name, a URL, a secret): a Back button on every step after the first,
// a step counter, each step showing its default or the answer given to it before, steps whose
// answer is already known skipped (going Back too), and Escape cancelling the whole walk.
// Answers apply themselves to the state.

import * as vscode from 'vscode';

/** A choice that applies itself to the state and moves on to the next step. */
export interface PickItem<S> extends vscode.QuickPickItem {
  apply(state: S): void;
  /** pre-selected when the step opens */
  isDefault?: boolean;
}

/** A choice that asks for a value in an input box and then shows its step again; Back there changes nothing. */
export interface EditItem<S> extends vscode.QuickPickItem {
  edit: InputBoxSpec<S>;
  isDefault?: boolean;
}

export interface PickStep<S> {
  placeholder: string;
  /** true when the state already holds this step's answer */
  skip?(state: S): boolean;
  /** may take a while (a listing); `note` replaces the placeholder meanwhile, e.g. with a wait */
  items(state: S, note: (text: string) => void, signal: AbortSignal): Promise<(PickItem<S> | EditItem<S>)[]>;
}

/** What an input box asks, and how its answer is checked and applied. */
export interface InputBoxSpec<S> {
  prompt: string;
  placeholder?: string;
  /** hides what is typed (a secret) */
  password?: boolean;
  /** the value shown when the box first opens; after that, what was typed in it */
  value(state: S): string;
  /** a message when the value cannot be used: shown while typing, and Enter is refused */
  validate?(value: string): string | undefined;
  /** asked after Enter on a valid value (a modal, say); false opens the box again with the value */
  confirm?(value: string, state: S): Promise<boolean>;
  apply(state: S, value: string): void;
}

export interface InputStep<S> extends InputBoxSpec<S> {
  /** true when the state already holds this step's answer */
  skip?(state: S): boolean;
}

export type Step<S> = PickStep<S> | InputStep<S>;

/** The heading every widget of a walk shows. */
interface Frame {
  title: string;
  step: number;
  totalSteps: number;
  canGoBack: boolean;
}

type Answer<T> = { kind: 'done'; value: T } | { kind: 'back'; value?: string } | { kind: 'cancel' };

/** Resolves with the filled state, or undefined when the person cancels. */
export async function runPickSteps<S extends object>(title: string, initial: S, steps: readonly Step<S>[]): Promise<S | undefined> {
  const widgets = new ShownWidget();
  const shown: { index: number; before: S }[] = [];
  // answers given before, by step: what was typed in a box, the label picked in a list
  const earlier = new Map<number, string>();
  let state = initial;
  try {
    for (let i = 0; i < steps.length; ) {
      const step = steps[i];
      if (step.skip?.(state)) {
        i++;
        continue;
      }
      const visible = steps.filter((s, j) => j >= i && !s.skip?.(state)).length;
      const frame: Frame = { title, step: shown.length + 1, totalSteps: shown.length + visible, canGoBack: shown.length > 0 };
      const answer = await answerStep(widgets, frame, step, state, earlier.get(i));
      if (answer.kind === 'cancel') return undefined;
      if (answer.kind === 'back') {
        if (answer.value !== undefined) earlier.set(i, answer.value);
        const previous = shown.pop() as { index: number; before: S };
        state = previous.before;
        i = previous.index;
        continue;
      }
      if (answer.value === 'again') continue;
      shown.push({ index: i, before: { ...state } });
      earlier.set(i, answer.value.remember);
      answer.value.apply(state);
      i++;
    }
    return state;
  } finally {
    widgets.dispose();
  }
}

interface Answered<S> {
  remember: string;
  apply(state: S): void;
}

async function answerStep<S>(widgets: ShownWidget, frame: Frame, step: Step<S>, state: S, before: string | undefined): Promise<Answer<Answered<S> | 'again'>> {
  if (!('items' in step)) {
    const answer = await askInput(widgets, frame, step, state, before ?? step.value(state));
    return answer.kind === 'done' ? { kind: 'done', value: { remember: answer.value, apply: (s) => step.apply(s, answer.value) } } : answer;
  }
  const answer = await askPick(widgets, frame, step, state, before);
  if (answer.kind !== 'done') return answer;
  const item = answer.value;
  if ('apply' in item) return { kind: 'done', value: { remember: item.label, apply: (s) => item.apply(s) } };
  const edited = await askInput(widgets, { ...frame, title: `${frame.title}: ${item.label}`, canGoBack: true }, item.edit, state, item.edit.value(state));
  if (edited.kind === 'cancel') return edited;
  if (edited.kind === 'done') item.edit.apply(state, edited.value);
  return { kind: 'done', value: 'again' };
}

/** The widget on screen: a new one is shown before the last one goes, so nothing flickers. */
class ShownWidget {
  private current: vscode.QuickInput | undefined;

  show(widget: vscode.QuickInput): void {
    widget.show();
    if (this.current !== widget) this.current?.dispose();
    this.current = widget;
  }

  dispose(): void {
    this.current?.dispose();
    this.current = undefined;
  }
}

function frameWidget(widget: vscode.QuickInput & { buttons: readonly vscode.QuickInputButton[] }, frame: Frame): void {
  widget.title = frame.title;
  widget.step = frame.step;
  widget.totalSteps = frame.totalSteps;
  widget.buttons = frame.canGoBack ? [vscode.QuickInputButtons.Back] : [];
  widget.ignoreFocusOut = true;
}

function askInput<S>(widgets: ShownWidget, frame: Frame, spec: InputBoxSpec<S>, state: S, value: string): Promise<Answer<string>> {
  const box = vscode.window.createInputBox();
  frameWidget(box, frame);
  box.prompt = spec.prompt;
  box.placeholder = spec.placeholder;
  box.password = spec.password ?? false;
  box.value = value;
  return new Promise((resolve, reject) => {
    const subscriptions: vscode.Disposable[] = [];
    const finish = (answer: Answer<string>): void => {
      for (const s of subscriptions) s.dispose();
      resolve(answer);
    };
    // hides asked for here (to show a modal over nothing) are not the person's Escape
    let ownHides = 0;
    let confirming = false;
    const confirm = async (typed: string): Promise<void> => {
      confirming = true;
      ownHides++;
      box.hide();
      try {
        if (await spec.confirm?.(typed, state)) return finish({ kind: 'done', value: typed });
      } catch (err) {
        for (const s of subscriptions) s.dispose();
        return reject(err);
      } finally {
        confirming = false;
      }
      box.show();
    };
    subscriptions.push(
      box.onDidChangeValue((typed) => (box.validationMessage = spec.validate?.(typed))),
      box.onDidAccept(() => {
        if (confirming) return;
        const typed = box.value;
        box.validationMessage = spec.validate?.(typed);
        if (box.validationMessage !== undefined) return;
        if (spec.confirm) void confirm(typed);
        else finish({ kind: 'done', value: typed });
      }),
      box.onDidTriggerButton((button) => {
        if (button === vscode.QuickInputButtons.Back && !confirming) finish({ kind: 'back', value: box.value });
      }),
      box.onDidHide(() => {
        if (ownHides > 0) ownHides--;
        else finish({ kind: 'cancel' });
      }),
    );
    widgets.show(box);
  });
}

function askPick<S>(widgets: ShownWidget, frame: Frame, step: PickStep<S>, state: S, before: string | undefined): Promise<Answer<PickItem<S> | EditItem<S>>> {
  const loading = new AbortController();
  const picker = vscode.window.createQuickPick<PickItem<S> | EditItem<S>>();
  frameWidget(picker, frame);
  picker.placeholder = step.placeholder;
  picker.busy = true;
  return new Promise((resolve, reject) => {
    const subscriptions: vscode.Disposable[] = [];
    const finish = (fn: () => void): void => {
      loading.abort();
      for (const s of subscriptions) s.dispose();
      fn();
    };
    subscriptions.push(
      picker.onDidAccept(() => {
        const [chosen] = picker.selectedItems;
        if (chosen) finish(() => resolve({ kind: 'done', value: chosen }));
      }),
      picker.onDidTriggerButton((button) => {
        if (button === vscode.QuickInputButtons.Back) finish(() => resolve({ kind: 'back' }));
      }),
      picker.onDidHide(() => finish(() => resolve({ kind: 'cancel' }))),
    );
    widgets.show(picker);
    step
      .items(state, (text) => (picker.placeholder = text), loading.signal)
      .then((items) => {
        if (loading.signal.aborted) return;
        picker.items = items;
        const active = items.find((item) => item.label === before) ?? items.find((item) => item.isDefault);
        if (active) picker.activeItems = [active];
        picker.placeholder = step.placeholder;
        picker.busy = false;
      })
      .catch((err: unknown) => {
        if (!loading.signal.aborted) finish(() => reject(err));
      });
  });
}
