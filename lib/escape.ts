// The one escaper of text that a target or a log supplied, before it reaches a terminal or a report.
// A target's answer can hold ESC sequences (clear the screen, set the window title, move the cursor),
// carriage returns and backspaces (overwrite a line already printed), BEL, C1 controls (U+0080–U+009F;
// U+009B is a CSI on many terminals), DEL, bidirectional overrides and isolates (text shown in another
// order than it is), line and paragraph separators (U+2028/U+2029: a line break to JavaScript's line
// readers and to some viewers, which tap-parser's line splitting chokes on) and other invisible format
// characters (zero-width spaces and joiners, soft hyphens, byte order marks, tag characters). Each is
// shown as a visible escape instead: `\r`, `\t`, `\x1b`, `\u202e`, `\u{e0041}`.
//
// A newline is kept where it is structural (a multi-line diagnostic such as a diff) and escaped as `\n`
// where it is the target's (a response excerpt, a title): there it could fake a line of the report.
// Backslashes are not doubled: an excerpt of JSON stays readable; a target that writes `\x1b` as text
// cannot produce an ESC by it.

/** Everything that is escaped besides the newline: controls (Cc), format characters (Cf), U+2028/U+2029. */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/u
const UNSAFE_G = /[\p{Cc}\p{Cf}\u2028\u2029]/gu
const UNSAFE_NO_NL_G = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/gu
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function hex(cp: number, n: number): string {
  return cp.toString(16).padStart(n, '0')
}

/** The visible escape of one character. */
function escapeChar(ch: string): string {
  const short = SHORT[ch]
  if (short) return short
  const cp = ch.codePointAt(0)!
  if (cp < 0x100) return `\\x${hex(cp, 2)}`
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`
  return `\\u{${hex(cp, 0)}}`
}

export interface VisibleOptions {
  /** keep newlines as they are (structural text of the harness); default: escape them as `\n` */
  newlines?: 'keep' | 'escape'
}

/**
 * `s` with every control, format and separator character shown as a visible escape (see above). The
 * one function every terminal line and report uses for text that came from a target or a log.
 */
export function visible(s: string, opts: VisibleOptions = {}): string {
  if (!UNSAFE.test(s)) return s
  return s.replace(opts.newlines === 'keep' ? UNSAFE_NO_NL_G : UNSAFE_G, escapeChar)
}

/** `visible` over every string inside a value (object keys included); other values as they are. */
export function visibleDeep<T>(v: T, opts: VisibleOptions = {}): T {
  return mapStrings(v, (s) => visible(s, opts)) as T
}

/** `f` over every string inside a JSON-like value (keys included); a copy, the input is left as it is. */
export function mapStrings(v: unknown, f: (s: string) => string, depth = 0): unknown {
  if (typeof v === 'string') return f(v)
  if (depth > 64 || v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f, depth + 1))
  if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[f(k)] = mapStrings(x, f, depth + 1)
  return out
}

// The TAP stream between the suite processes and the runner: escapes that keep their meaning in every
// place of it (a YAML double-quoted scalar reads `\u001b` back as ESC, a plain scalar or a test point's
// name keeps the six characters, a `# ac-leftover` JSON comment reads it back), so that the stream holds
// no control character but its newlines. Characters beyond the BMP (tag characters) are left to
// `visible` at display: a `\u` escape of half a surrogate pair is not valid YAML.
const STREAM_UNSAFE = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/u
const STREAM_UNSAFE_G = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/gu
const PLAIN = /^[\n\x20-\x7e]*$/

/** A TAP (or other line-based) stream with every control but the newline as a `\uXXXX` escape. */
export function streamSafe(text: string): string {
  // Printable ASCII and newlines (a JSON report, most TAP) are safe: one plain character class reads
  // them about five times as fast as the Unicode classes (0.7 against 3.9 ms for audit-log's 850 KB).
  if (PLAIN.test(text) || !STREAM_UNSAFE.test(text)) return text
  return text.replace(STREAM_UNSAFE_G, (ch) => {
    const cp = ch.codePointAt(0)!
    return cp < 0x10000 ? `\\u${hex(cp, 4)}` : ch
  })
}
