// Plain text (names, ids, messages, descriptions from the service) made safe inside Markdown
// shown by VS Code: markup characters are backslash-escaped, so the text can make no link,
// heading, emphasis or HTML of its own, and control characters are shown as escapes (see
// visibleControls). Unlike MarkdownString.appendText, spaces stay spaces: appendText turns
// them into `&nbsp;`, which stops a hover from wrapping between words, so long text breaks in
// mid-word.

import { visibleControls } from './visibleControls';

/** ASCII punctuation that means something to Markdown (or HTML) wherever it stands. */
const MARKUP = /[\\`*_[\]<>&|~!]/g;
/** what starts a heading, quote, list or rule at the beginning of a line */
const LINE_START = /^(\s*)([#>+=-]|\d+[.)])/;

/** Text of several lines as Markdown paragraphs, one per non-empty line. */
export function markdownText(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map(markdownInline)
    .join('\n\n');
}

/** Text as part of one line of Markdown (a list item, after a label): line breaks are shown as `\n`. */
export function markdownInline(text: string): string {
  return visibleControls(text)
    .replace(MARKUP, '\\$&')
    .replace(LINE_START, (_all, space: string, mark: string) => `${space}${mark.slice(0, -1)}\\${mark.slice(-1)}`);
}

/** Text as a Markdown code span, backticks included: nothing in it can end the span early. */
export function markdownCode(text: string): string {
  return `\`${visibleControls(text).replace(/`/g, "'")}\``;
}
