// Rust's `{:?}` of a &str, both ways: the service quotes the User-Agent with it (and its error
// messages quote values with it, which the mock imitates), the scanner decodes it. One copy for the
// whole project: mock/ imports this one.

import { fail } from './scan-error.ts'

// Characters Rust's Debug escapes as \u{..}: controls, format characters, separators other than
// the plain space, unassigned and private-use code points. Real User-Agent values are visible ASCII
// (the header type requires it), so this only matters for hand-made records.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]|[\p{Zs}](?<! )/u
const GRAPHEME_EXTEND = /^\p{M}/u

export function rustDebugQuote(s: string): string {
  // Fast path: printable ASCII without quote or backslash is printed as is.
  let plain = true
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      plain = false
      break
    }
  }
  if (plain) return '"' + s + '"'
  let out = '"'
  let i = 0
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    switch (cp) {
      case 0x22:
        out += '\\"'
        break
      case 0x5c:
        out += '\\\\'
        break
      case 0x0a:
        out += '\\n'
        break
      case 0x0d:
        out += '\\r'
        break
      case 0x09:
        out += '\\t'
        break
      case 0x00:
        out += '\\0'
        break
      default:
        if ((cp >= 0x20 && cp < 0x7f) || (!NON_PRINTABLE.test(ch) && !(i === 0 && GRAPHEME_EXTEND.test(ch)))) {
          out += ch
        } else {
          out += `\\u{${cp.toString(16)}}`
        }
    }
    i++
  }
  return out + '"'
}

/** The string decoded by the last decodeQuoted. */
export let uaDecoded: string = ''
/**
 * Decodes the Rust Debug string whose content starts at p (after the quote) and that has an escape
 * at b; returns the index after the closing quote (the text in uaDecoded), or -1 (see scan-error.ts).
 */
export function decodeQuoted(s: string, p: number, b: number): number {
  let out = s.slice(p, b)
  const n = s.length
  let i = b
  while (i < n) {
    const c = s.charCodeAt(i)
    if (c === 34) {
      uaDecoded = out
      return i + 1
    }
    if (c !== 92) {
      out += s[i]
      i++
      continue
    }
    const e = s.charCodeAt(i + 1)
    switch (e) {
      case 34:
        out += '"'
        i += 2
        break
      case 92:
        out += '\\'
        i += 2
        break
      case 39:
        out += "'"
        i += 2
        break
      case 110:
        out += '\n'
        i += 2
        break
      case 114:
        out += '\r'
        i += 2
        break
      case 116:
        out += '\t'
        i += 2
        break
      case 48:
        out += '\0'
        i += 2
        break
      case 117: {
        // \u{1-6 hex digits}
        if (s.charCodeAt(i + 2) !== 123) return fail('user-agent', i, "expected '{' after \\u")
        const close = s.indexOf('}', i + 3)
        if (close === -1 || close === i + 3 || close - (i + 3) > 6) return fail('user-agent', i, 'bad \\u{...} escape')
        let cp = 0
        for (let k = i + 3; k < close; k++) {
          const h = s.charCodeAt(k) | 0x20
          const d = h >= 48 && h <= 57 ? h - 48 : h >= 97 && h <= 102 ? h - 87 : -1
          if (d < 0) return fail('user-agent', k, 'bad hex digit in \\u{...} escape')
          cp = cp * 16 + d
        }
        if (cp > 0x10ffff) return fail('user-agent', i, 'code point out of range in \\u{...} escape')
        out += String.fromCodePoint(cp)
        i = close + 1
        break
      }
      default:
        return fail('user-agent', i, i + 1 >= n ? 'line ends inside the User-Agent' : `unknown escape '\\${s[i + 1]}'`)
    }
  }
  return fail('user-agent', p - 1, 'unterminated quoted User-Agent')
}

// --- ANSI --------------------------------------------------------------------------------------
