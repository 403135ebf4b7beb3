// Detailed scanners of fixed-shape parts (timestamp, stats): the fast sticky regexes of
// grammar.ts give the verdict; these run when one rejects a part, to say where and why, and read
// the stats' numbers.

import { STATS_LABELS } from './grammar.ts'
import { fail } from './scan-error.ts'
import { isDigit, num2, parseUint } from './tokens.ts'
import type { Stats } from './types.ts'

const TS_TEMPLATE = 'dddd-dd-ddTdd:dd:dd'
const TS_NAMES = [
  'year',
  'year',
  'year',
  'year',
  '',
  'month',
  'month',
  '',
  'day',
  'day',
  '',
  'hour',
  'hour',
  '',
  'minute',
  'minute',
  '',
  'second',
  'second',
]

/** Detailed timestamp scanner (same grammar as the scanner's sticky regex of RE_DATE_TIME); returns the index after the `Z`. */
export function scanTimestampSlow(s: string): number {
  const n = s.length
  for (let i = 0; i < 19; i++) {
    if (i >= n) return fail('timestamp', i, 'line ends inside the timestamp')
    const c = s.charCodeAt(i)
    const t = TS_TEMPLATE.charCodeAt(i)
    if (t === 100 /* d */) {
      if (!isDigit(c)) return fail('timestamp', i, `expected a digit of the ${TS_NAMES[i]}`)
    } else if (c !== t) {
      return fail('timestamp', i, `expected '${TS_TEMPLATE[i]}'`)
    }
  }
  const month = num2(s, 5)
  if (month < 1 || month > 12) return fail('timestamp', 5, 'month out of range')
  const day = num2(s, 8)
  if (day < 1 || day > 31) return fail('timestamp', 8, 'day out of range')
  if (num2(s, 11) > 23) return fail('timestamp', 11, 'hour out of range')
  if (num2(s, 14) > 59) return fail('timestamp', 14, 'minute out of range')
  if (num2(s, 17) > 60) return fail('timestamp', 17, 'second out of range')
  let p = 19
  if (s.charCodeAt(p) === 46 /* . */) {
    p++
    const start = p
    while (p < n && isDigit(s.charCodeAt(p))) p++
    if (p === start) return fail('timestamp', p, 'expected fractional seconds after "."')
    if (p - start > 9) return fail('timestamp', start + 9, 'more than 9 fractional digits')
  }
  if (s.charCodeAt(p) !== 90 /* Z */) return fail('timestamp', p, "expected 'Z' (UTC) at the end of the timestamp")
  return p + 1
}

// --- stats (detailed scanner: used for error messages and to read the numbers) ---------------

let numOut = 0
/** Scans `<label><digits>` at p, value into numOut; returns the index after it. */
function scanCount(s: string, p: number, label: string): number {
  if (!s.startsWith(label, p)) return fail('stats', p, `expected '${label}'`)
  p += label.length
  const start = p
  const n = s.length
  while (p < n && isDigit(s.charCodeAt(p))) p++
  const v = parseUint(s, start, p)
  if (v < 0) return fail('stats', start, p === start ? `expected an integer after '${label}'` : 'number too long')
  numOut = v
  return p
}
/** Scans `<label><digits>.<digit>ms` at p, value into numOut. */
function scanMs(s: string, p: number, label: string): number {
  if (!s.startsWith(label, p)) return fail('stats', p, `expected '${label}'`)
  p += label.length
  const start = p
  const n = s.length
  while (p < n && isDigit(s.charCodeAt(p))) p++
  const whole = parseUint(s, start, p)
  if (whole < 0) return fail('stats', start, p === start ? `expected a duration after '${label}'` : 'number too long')
  if (s.charCodeAt(p) !== 46 || !isDigit(s.charCodeAt(p + 1))) {
    return fail('stats', p, 'expected one decimal in the duration (e.g. 4.7ms)')
  }
  const tenth = s.charCodeAt(p + 1) - 48
  p += 2
  if (s.charCodeAt(p) !== 109 || s.charCodeAt(p + 1) !== 115) {
    return fail('stats', p, isDigit(s.charCodeAt(p)) ? 'expected exactly one decimal in the duration' : "expected the unit 'ms'")
  }
  // Exact division of integers gives the same double as parsing the decimal text.
  numOut = (whole * 10 + tenth) / 10
  return p + 2
}

/** The stats read by the last scanStatsSlow. */
export let statsOut: Stats = { polls: 0, cpuMs: 0, elapsedMs: 0 }
/** Scans the stats block from just after '['; returns the index after ']'. */
export function scanStatsSlow(s: string, p: number): number {
  p = scanCount(s, p, STATS_LABELS.polls)
  if (p < 0) return p
  const polls = numOut
  p = scanMs(s, p, STATS_LABELS.cpu)
  if (p < 0) return p
  const cpuMs = numOut
  if (s.startsWith(STATS_LABELS.db, p)) {
    p = scanMs(s, p, STATS_LABELS.db)
    if (p < 0) return p
    const dbMs = numOut
    p = scanMs(s, p, STATS_LABELS.elapsed)
    if (p < 0) return p
    const elapsedMs = numOut
    p = scanCount(s, p, STATS_LABELS.queries)
    if (p < 0) return p
    const queries = numOut
    p = scanCount(s, p, STATS_LABELS.fetched)
    if (p < 0) return p
    statsOut = { polls, cpuMs, dbMs, elapsedMs, queries, fetched: numOut }
  } else {
    if (!s.startsWith(STATS_LABELS.elapsed, p)) return fail('stats', p, "expected ', db: ' (v1.20) or ', elapsed: ' (before v1.20)")
    p = scanMs(s, p, STATS_LABELS.elapsed)
    if (p < 0) return p
    statsOut = { polls, cpuMs, elapsedMs: numOut }
  }
  if (s.charCodeAt(p) !== 93 /* ] */) return fail('stats', p, "expected ']' closing the stats")
  return p + 1
}
