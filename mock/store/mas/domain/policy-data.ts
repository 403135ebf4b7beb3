// Policy data: what POST policy-data stores is merged into the configuration's static data, with
// the policy engine's merge rules and its error when two kinds cannot merge.
/** Static policy data from the configuration, into which POST policy-data is merged. */
export function mergePolicyData(base: unknown, update: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const kind = (v: unknown) =>
    v === null
      ? 'null'
      : Array.isArray(v)
        ? 'array'
        : typeof v === 'object'
          ? 'object'
          : typeof v === 'number'
            ? 'number'
            : typeof v === 'boolean'
              ? 'boolean'
              : 'string'
  const rec = (left: unknown, right: unknown): unknown => {
    const kl = kind(left)
    const kr = kind(right)
    if (kl === 'object' && kr === 'object') {
      const out: Record<string, unknown> = { ...(left as Record<string, unknown>) }
      for (const [k, v] of Object.entries(right as Record<string, unknown>)) out[k] = Object.hasOwn(out, k) ? rec(out[k], v) : v
      return out
    }
    if (kl === 'array' && kr === 'array') return [...(left as unknown[]), ...(right as unknown[])]
    if (kl === kr && kl !== 'null') return right
    if (kl === 'null' || kr === 'null') return right
    throw new MergeError(`Cannot merge a ${kr} into a ${kl}`)
  }
  try {
    return { ok: true, value: rec(base, update) }
  } catch (e) {
    if (e instanceof MergeError) return { ok: false, error: e.message }
    throw e
  }
}

class MergeError extends Error {}
