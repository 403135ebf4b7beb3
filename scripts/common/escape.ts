// Showing text that came from a target: every reporter escapes it, so that no byte a target sent can
// move a terminal's cursor or inject markup.

/** HTML text and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!)
}

/** Control characters (C0, DEL, C1) and line/paragraph separators as `\xNN` / `\uNNNN`, for a terminal or a text file. */
export function printable(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const n = c.charCodeAt(0)
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`
  })
}

/** Markdown table cells and inline text: printable, with the characters that break a table escaped. */
export function escapeMarkdown(s: string): string {
  return printable(s).replace(/[|`*_<>[\]\\]/g, (c) => `\\${c}`)
}
