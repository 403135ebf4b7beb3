// Values a check compares, shortened for tap: tap's deep comparisons and their diagnostics format both
// sides whole, as they compare (on a pass too), so one 4 MiB listing from a target held to `[]` makes
// megabytes of strings, and a few of them in a row take a suite worker past its heap bound (decision
// 0004). A value past SIZE_LIMIT is compared here, in full, and only a shortened copy is shown.

/** About how many bytes of JSON a value may take before it is compared here and shown shortened. */
export const SIZE_LIMIT = 64 * 1024
const SHOWN_ITEMS = 20
const SHOWN_KEYS = 40
const SHOWN_CHARS = 2048
const SHOWN_DEPTH = 6

/** Does `v` take more than about `limit` bytes? Looks at no more than about `limit` bytes' worth of it. */
export function isLarge(v: unknown, limit = SIZE_LIMIT): boolean {
  let budget = limit
  const stack: unknown[] = [v]
  while (stack.length) {
    const x = stack.pop()
    if (typeof x === 'string') budget -= x.length + 2
    else if (x !== null && typeof x === 'object') {
      if (Array.isArray(x)) {
        budget -= 2 + x.length
        if (budget < 0) return true
        for (let i = 0; i < x.length && stack.length < limit; i++) stack.push(x[i])
      } else {
        const keys = Object.keys(x)
        budget -= 2 + keys.length * 4
        if (budget < 0) return true
        for (const k of keys) {
          budget -= k.length
          if (stack.length < limit) stack.push((x as Record<string, unknown>)[k])
        }
      }
    } else budget -= 8
    if (budget < 0) return true
  }
  return false
}

/** A shortened copy of `v` to show: long strings, arrays and objects cut, with what was left out said. */
export function shortened(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.length > SHOWN_CHARS ? `${v.slice(0, SHOWN_CHARS)}… (${v.length - SHOWN_CHARS} more characters)` : v
  if (v === null || typeof v !== 'object') return v
  if (depth >= SHOWN_DEPTH) return Array.isArray(v) ? `[an array of ${v.length} items]` : '[an object]'
  if (Array.isArray(v)) {
    const out: unknown[] = v.slice(0, SHOWN_ITEMS).map((x) => shortened(x, depth + 1))
    if (v.length > SHOWN_ITEMS) out.push(`… ${v.length - SHOWN_ITEMS} more items (${v.length} in all)`)
    return out
  }
  const keys = Object.keys(v)
  const out: Record<string, unknown> = {}
  for (const k of keys.slice(0, SHOWN_KEYS)) out[k] = shortened((v as Record<string, unknown>)[k], depth + 1)
  if (keys.length > SHOWN_KEYS) out['…'] = `${keys.length - SHOWN_KEYS} more keys (${keys.length} in all)`
  return out
}
