// The WHERE and filter boxes when a view is applied: text typed but not applied yet stays. A box
// takes the new view's text only when its applied value changed (Cancel went back, a new result
// came), and never while the user is editing it.

export interface ShownInput {
  /** the text in the box now */
  value: string;
  /** the box has the keyboard focus */
  focused: boolean;
}

/**
 * Whether a box is given `after`, the applied value of the new view; `before` is its applied value
 * in the view shown until now. A focused box whose text is not `before` is being edited.
 */
export function takesAppliedText(input: ShownInput, before: string, after: string): boolean {
  if (before === after) return false;
  return !(input.focused && input.value !== before);
}
