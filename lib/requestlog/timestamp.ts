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
  // toISOString gives milliseconds; append the 3 sub-millisecond digits.
  const iso = date.toISOString()
  return iso.slice(0, 23) + String(micros).padStart(3, '0') + 'Z'
}
