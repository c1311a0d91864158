// Text from the service (names, ids, messages) shown to a person, on a terminal or in a hover,
// with its control characters written as escapes a person can read (`\x1b`, `\r`, `\u202e`):
// such text can then neither drive a terminal (colours, the clipboard through OSC 52, cursor
// moves), nor forge a line of its own with a CR or LF, nor reorder or hide what is shown around
// it (bidirectional overrides, invisible marks). Tabs stay as they are.

/** C0 but tab, DEL, C1, and the Unicode marks that reorder text or show nothing */
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** What JSON.stringify leaves raw of CONTROLS: all but C0, which it escapes itself. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\0': '\\0' };

/** `text` with every control character written as a visible escape. */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, (c) => NAMED[c] ?? escapeOf(c));
}

/**
 * JSON text (from JSON.stringify) with the control characters it leaves raw written as `\uXXXX`
 * escapes: they can only stand inside strings, so the JSON still means exactly the same.
 */
export function jsonWithVisibleControls(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${hex(c, 4)}`);
}

function escapeOf(c: string): string {
  return c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`;
}

function hex(c: string, width: number): string {
  return c.charCodeAt(0).toString(16).padStart(width, '0');
}
