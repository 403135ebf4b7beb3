// ANSI colours: the service colours its lines on a terminal; readers strip them, and error
// columns are mapped back to the original line.

/** Removes ANSI escape sequences (CSI `ESC [ … final` and two-byte `ESC x`). */
export function stripAnsi(s: string): string {
  let i = s.indexOf('\x1b')
  if (i === -1) return s
  let out = ''
  let from = 0
  const n = s.length
  while (i !== -1) {
    out += s.slice(from, i)
    from = skipEscape(s, i, n)
    i = s.indexOf('\x1b', from)
  }
  return out + s.slice(from)
}

function skipEscape(s: string, i: number, n: number): number {
  let j = i + 1
  if (j < n && s.charCodeAt(j) === 91 /* [ */) {
    j++
    while (j < n) {
      const c = s.charCodeAt(j)
      j++
      if (c >= 0x40 && c <= 0x7e) break
    }
    return j
  }
  return Math.min(j + 1, n)
}

/** Maps an index in stripAnsi(s) back to the index in s. */
export function originalIndex(s: string, stripped: number): number {
  let kept = 0
  let i = 0
  const n = s.length
  while (i < n) {
    if (s.charCodeAt(i) === 27) {
      i = skipEscape(s, i, n)
      continue
    }
    if (kept === stripped) return i
    kept++
    i++
  }
  return n + (stripped - kept)
}
