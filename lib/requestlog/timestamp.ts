// Timestamps as the service prints them.

/**
 * UTC RFC 3339 with 6 fractional digits and `Z`, as the service prints it.
 * `micros` (0–999) adds the microseconds below the Date's millisecond.
 */
export function formatTimestamp(date: Date, micros = 0): string {
  const t = date.getTime()
  if (!Number.isFinite(t)) throw new RangeError('formatTimestamp: invalid Date')
  if (!Number.isInteger(micros) || micros < 0 || micros > 999) {
    throw new RangeError(`formatTimestamp: micros must be an integer 0..999, got ${micros}`)
  }
  // The mock stamps every log line: the text up to the seconds is kept for the second it names (the
  // same text toISOString gives, years 0-9999), the milliseconds and microseconds appended.
  const sec = Math.floor(t / 1000)
  if (sec !== lastSecond) {
    const iso = date.toISOString()
    if (iso.length !== 24) return iso.slice(0, 23) + THREE[micros]! + 'Z'
    lastSecond = sec
    lastPrefix = iso.slice(0, 20)
  }
  return lastPrefix + THREE[t - sec * 1000]! + THREE[micros]! + 'Z'
}

const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'))
let lastSecond = NaN
let lastPrefix = ''
