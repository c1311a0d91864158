// Walks a person through several quick picks (connection > namespace > table > ...): one
// picker reused for every step, a Back button, the default of each step pre-selected, and
// steps whose answer is already known skipped. Items apply their own choice to the state.

import * as vscode from 'vscode';

export interface PickItem<S> extends vscode.QuickPickItem {
  apply(state: S): void;
  /** pre-selected when the step opens */
  isDefault?: boolean;
}

export interface PickStep<S> {
  placeholder: string;
  /** true when the state already holds this step's answer */
  skip?(state: S): boolean;
  /** may take a while (a listing); `note` replaces the placeholder meanwhile, e.g. with a wait */
  items(state: S, note: (text: string) => void, signal: AbortSignal): Promise<PickItem<S>[]>;
}

/** Resolves with the filled state, or undefined when the person cancels. */
export async function runPickSteps<S extends object>(title: string, initial: S, steps: readonly PickStep<S>[]): Promise<S | undefined> {
  const picker = vscode.window.createQuickPick<PickItem<S>>();
  picker.ignoreFocusOut = true;
  const shown: { index: number; before: S }[] = [];
  let state = initial;
  try {
    for (let i = 0; i < steps.length; ) {
      const step = steps[i];
      if (step.skip?.(state)) {
        i++;
        continue;
      }
      const visible = steps.filter((s, j) => j >= i && !s.skip?.(state)).length;
      picker.title = `${title} (${shown.length + 1}/${shown.length + visible})`;
      const answer = await ask(picker, step, state, shown.length > 0);
      if (answer === undefined) return undefined;
      if (answer === 'back') {
        const previous = shown.pop() as { index: number; before: S };
        state = previous.before;
        i = previous.index;
        continue;
      }
      shown.push({ index: i, before: { ...state } });
      answer.apply(state);
      i++;
    }
    return state;
  } finally {
    picker.dispose();
  }
}

function ask<S>(picker: vscode.QuickPick<PickItem<S>>, step: PickStep<S>, state: S, canGoBack: boolean): Promise<PickItem<S> | 'back' | undefined> {
  const loading = new AbortController();
  picker.items = [];
  picker.value = '';
  picker.placeholder = step.placeholder;
  picker.buttons = canGoBack ? [vscode.QuickInputButtons.Back] : [];
  picker.busy = true;
  picker.show();
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
        if (chosen) finish(() => resolve(chosen));
      }),
      picker.onDidTriggerButton((button) => {
        if (button === vscode.QuickInputButtons.Back) finish(() => resolve('back'));
      }),
      picker.onDidHide(() => finish(() => resolve(undefined))),
    );
    step
      .items(state, (text) => (picker.placeholder = text), loading.signal)
      .then((items) => {
        if (loading.signal.aborted) return;
        picker.items = items;
        picker.activeItems = items.filter((item) => item.isDefault).slice(0, 1);
        picker.placeholder = step.placeholder;
        picker.busy = false;
      })
      .catch((err: unknown) => {
        if (!loading.signal.aborted) finish(() => reject(err));
      });
  });
}
