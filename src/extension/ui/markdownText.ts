// Plain text (names, descriptions, enum values from the service) made safe inside Markdown
// shown by VS Code: markup characters are backslash-escaped and each line becomes a paragraph.
// Unlike MarkdownString.appendText, spaces stay spaces: appendText turns them into `&nbsp;`,
// which stops a hover from wrapping between words, so long text breaks in mid-word.

/** ASCII punctuation that means something to Markdown (or HTML) wherever it stands. */
const MARKUP = /[\\`*_[\]<>&|~!]/g;
/** what starts a heading, quote, list or rule at the beginning of a line */
const LINE_START = /^(\s*)([#>+=-]|\d+[.)])/;

export function markdownText(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => line.replace(MARKUP, '\\$&').replace(LINE_START, (_all, space: string, mark: string) => `${space}${mark.slice(0, -1)}\\${mark.slice(-1)}`))
    .join('\n\n');
}
