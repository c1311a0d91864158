// Stand-ins for VS Code's input boxes and quick picks (window.createInputBox and
// createQuickPick) that a test drives as a person would: type, press Enter, press Back or
// Escape, and read what each one shows (heading with its step counter, prompt, value,
// validation message, items, buttons). As in VS Code, showing one hides the one on screen, and
// hiding fires onDidHide. No `vscode` import: the Back button is handed in, so plain-Node tests
// and the suites in real VS Code share them.

/** A button of a quick input, as VS Code's QuickInputButton. */
export interface ButtonLike {
  readonly tooltip?: string;
}

interface DisposableLike {
  dispose(): void;
}

type Event<T> = (listener: (value: T) => unknown) => DisposableLike;

class Emitter<T> {
  private readonly listeners = new Set<(value: T) => unknown>();
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** Lets promise callbacks and immediate callbacks run until `ready` holds; fails naming `what` after `ms`. */
export async function until(ready: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`Waited ${ms} ms for ${what}.`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

abstract class FakeQuickInput {
  title: string | undefined;
  step: number | undefined;
  totalSteps: number | undefined;
  enabled = true;
  busy = false;
  ignoreFocusOut = false;
  buttons: readonly ButtonLike[] = [];
  placeholder: string | undefined;
  visible = false;
  disposed = false;
  protected readonly hidden = new Emitter<void>();
  protected readonly triggered = new Emitter<ButtonLike>();
  protected readonly accepted = new Emitter<void>();
  protected readonly changedValue = new Emitter<string>();
  readonly onDidHide = this.hidden.event;
  readonly onDidTriggerButton = this.triggered.event;
  readonly onDidAccept = this.accepted.event;
  readonly onDidChangeValue = this.changedValue.event;
  private typed = '';

  constructor(protected readonly inputs: FakeQuickInputs) {}

  get value(): string {
    return this.typed;
  }

  set value(text: string) {
    this.typed = text;
  }

  /** The heading as VS Code draws it: the title and the step counter, e.g. "Add Connection (2/5)". */
  get heading(): string {
    const counter = this.step ? (this.totalSteps ? `${this.step}/${this.totalSteps}` : String(this.step)) : '';
    return this.title && counter ? `${this.title} (${counter})` : (this.title ?? counter);
  }

  get hasBack(): boolean {
    return this.buttons.includes(this.inputs.back);
  }

  show(): void {
    if (this.disposed) throw new Error(`"${this.heading}" was shown after it was disposed.`);
    if (this.visible) return;
    this.inputs.showing(this, () => (this.visible = true));
  }

  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    this.inputs.hiding(this);
    this.hidden.fire();
  }

  dispose(): void {
    this.hide();
    this.disposed = true;
    for (const emitter of [this.hidden, this.triggered, this.accepted, this.changedValue]) emitter.clear();
  }

  /** Types `text` over what the box holds, as a person would. */
  type(text: string): void {
    this.onScreen('type in');
    this.typed = text;
    this.changedValue.fire(text);
  }

  /** Presses the Back button; fails when the widget shows none. */
  back(): void {
    this.onScreen('press Back in');
    if (!this.hasBack) throw new Error(`"${this.heading}" shows no Back button.`);
    this.triggered.fire(this.inputs.back);
  }

  /** Presses Escape. */
  escape(): void {
    this.onScreen('press Escape in');
    this.hide();
  }

  protected onScreen(doing: string): void {
    if (!this.visible || this.disposed) throw new Error(`Cannot ${doing} "${this.heading}": it is not on screen.`);
  }
}

export class FakeInputBox extends FakeQuickInput {
  readonly kind = 'input';
  prompt: string | undefined;
  password = false;
  validationMessage: string | undefined;

  /** Types `text` (when given) and presses Enter. */
  enter(text?: string): void {
    if (text !== undefined) this.type(text);
    this.onScreen('press Enter in');
    this.accepted.fire();
  }
}

export interface ItemLike {
  label: string;
}

export class FakeQuickPick<T extends ItemLike = ItemLike> extends FakeQuickInput {
  readonly kind = 'pick';
  activeItems: readonly T[] = [];
  selectedItems: readonly T[] = [];
  private list: readonly T[] = [];

  get items(): readonly T[] {
    return this.list;
  }

  /** As in VS Code, new items make the first one active. */
  set items(items: readonly T[]) {
    this.list = items;
    this.activeItems = items.slice(0, 1);
  }

  get labels(): string[] {
    return this.list.map((item) => item.label);
  }

  /** Waits until the list has loaded (the widget is no longer busy). */
  async loaded(): Promise<this> {
    await until(() => !this.busy, `the items of "${this.heading}"`);
    return this;
  }

  /** Waits for the items, then picks the one labelled `label` (or starting with it) and presses Enter. */
  async choose(label: string): Promise<void> {
    await this.loaded();
    const item = this.list.find((i) => i.label === label) ?? this.list.find((i) => i.label.startsWith(label));
    if (!item) throw new Error(`"${this.heading}" offers no "${label}", only ${this.labels.join(', ')}.`);
    this.onScreen('pick in');
    this.activeItems = [item];
    this.selectedItems = [item];
    this.accepted.fire();
  }

  /** Waits for the items, then presses Enter on the active one. */
  async enter(): Promise<void> {
    await this.loaded();
    this.onScreen('press Enter in');
    this.selectedItems = this.activeItems.slice(0, 1);
    this.accepted.fire();
  }
}

export type FakeWidget = FakeInputBox | FakeQuickPick;

/** The window's quick inputs: makes the widgets, and records each one as it is shown. */
export class FakeQuickInputs {
  /** every widget in the order shown (one shown again counts again) */
  readonly shown: FakeWidget[] = [];
  private onScreen: FakeWidget | undefined;
  private read = 0;
  private readonly showListeners = new Set<(widget: FakeWidget) => void>();

  constructor(readonly back: ButtonLike) {}

  createInputBox(): FakeInputBox {
    return new FakeInputBox(this);
  }

  createQuickPick<T extends ItemLike>(): FakeQuickPick<T> {
    return new FakeQuickPick<T>(this);
  }

  /** The widget on screen, if any. */
  get visible(): FakeWidget | undefined {
    return this.onScreen;
  }

  /** The next widget shown after the last one this returned, waiting for it. */
  async next(): Promise<FakeWidget> {
    await until(() => this.shown.length > this.read, 'a quick input to show');
    return this.shown[this.read++];
  }

  async nextInput(): Promise<FakeInputBox> {
    const widget = await this.next();
    if (widget.kind !== 'input') throw new Error(`Expected an input box, but "${widget.heading}" is a quick pick.`);
    return widget;
  }

  async nextPick(): Promise<FakeQuickPick> {
    const widget = await this.next();
    if (widget.kind !== 'pick') throw new Error(`Expected a quick pick, but "${widget.heading}" is an input box.`);
    return widget;
  }

  /** Calls `listener` with each widget as it is shown, until disposed. */
  onDidShow(listener: (widget: FakeWidget) => void): DisposableLike {
    this.showListeners.add(listener);
    return { dispose: () => this.showListeners.delete(listener) };
  }

  /** @internal a widget shows: the one on screen goes first, as in VS Code */
  showing(widget: FakeQuickInput, show: () => void): void {
    this.onScreen?.hide();
    show();
    this.onScreen = widget as FakeWidget;
    this.shown.push(widget as FakeWidget);
    for (const listener of [...this.showListeners]) listener(widget as FakeWidget);
  }

  /** @internal */
  hiding(widget: FakeQuickInput): void {
    if (this.onScreen === widget) this.onScreen = undefined;
  }
}
