// "did you mean": the closest known name by edit distance, offered only when it is close enough to be a
// typo (otherwise the user gets the list of names, not a wrong guess).

/** Levenshtein distance (insertions, deletions, substitutions each cost 1). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length]!
}

/**
 * The known name closest to `input`, or undefined when none is plausibly meant: the distance must be at
 * most a third of the longer name (at least 1, at most 3), or the input a prefix of exactly one name.
 */
export function closest(input: string, known: Iterable<string>): string | undefined {
  const lower = input.toLowerCase()
  let best: string | undefined
  let bestD = Infinity
  const prefixed: string[] = []
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase())
    if (d < bestD) {
      bestD = d
      best = k
    }
    if (lower.length >= 2 && k.toLowerCase().startsWith(lower)) prefixed.push(k)
  }
  if (best === undefined) return undefined
  const limit = Math.min(3, Math.max(1, Math.floor(Math.max(lower.length, best.length) / 3)))
  if (bestD <= limit) return best
  return prefixed.length === 1 ? prefixed[0] : undefined
}

/** `; did you mean 'x'?` or '' — ready to append to a message. */
export function didYouMean(input: string, known: Iterable<string>, quote: (s: string) => string = (s) => `'${s}'`): string {
  const c = closest(input, known)
  return c === undefined ? '' : `; did you mean ${quote(c)}?`
}
