// The command-line conventions the run command follows: exit codes, the message prefix, usage errors with
// "did you mean". Kept in this one file so that it can give way to the shared scripts/common folder
// (owned by the CLI conventions work) with a change of imports only.

/** 0 pass, 1 a check failed (or nothing was proved), 2 usage, 3 target unreachable or rejected, 130 interrupted */
export const EXIT = { ok: 0, failed: 1, usage: 2, target: 3, interrupted: 130 } as const
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

export const PREFIX = 'admin-conformance run:'

export class UsageError extends Error {
  override name = 'UsageError'
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }
  return prev[b.length]!
}

/** The known word closest to `word`, when it is close enough to be a slip of the keyboard. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestD = Infinity
  for (const k of known) {
    const d = distance(word.toLowerCase(), k.toLowerCase())
    if (d < bestD) [best, bestD] = [k, d]
  }
  const limit = Math.max(1, Math.min(3, Math.floor((best?.length ?? 0) / 3)))
  return best !== undefined && (bestD <= limit || best.startsWith(word) || word.startsWith(best)) ? best : undefined
}

/** " (did you mean 'x'?)" or '' */
export function didYouMean(word: string, known: readonly string[]): string {
  const c = closest(word, known)
  return c !== undefined && c !== word ? ` (did you mean '${c}'?)` : ''
}
