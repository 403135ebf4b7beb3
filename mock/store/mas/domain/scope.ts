// OAuth 2.0 scopes as the service parses, stores (a sorted set) and reads them (device scopes).
/** A scope token: non-empty printable ASCII without space, `"` and `\`. */
export function isScopeToken(s: string): boolean {
  if (s.length === 0) return false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x21 || c > 0x7e || c === 0x22 || c === 0x5c) return false
  }
  return true
}

/** Parses a space-separated scope like the service (single spaces only); null when invalid. */
export function parseScope(s: string): string[] | null {
  const tokens = s.split(' ')
  if (!tokens.every(isScopeToken)) return null
  return normalizeScope(tokens)
}

/** the stored form: a sorted set (byte order) */
export function normalizeScope(tokens: Iterable<string>): string[] {
  return [...new Set(tokens)].sort()
}

const DEVICE_SCOPE_PREFIXES = ['urn:matrix:client:device:', 'urn:matrix:org.matrix.msc2967.client:device:']

export function deviceOfScope(scope: string): string | null {
  for (const token of scope.split(' ')) {
    for (const p of DEVICE_SCOPE_PREFIXES) if (token.startsWith(p) && token.length > p.length) return token.slice(p.length)
  }
  return null
}

/** whether a space-separated scope holds a token (no split: this runs per scanned item) */
export function scopeHasToken(scope: string, token: string): boolean {
  let from = 0
  for (;;) {
    const i = scope.indexOf(token, from)
    if (i === -1) return false
    const end = i + token.length
    if ((i === 0 || scope.charCodeAt(i - 1) === 32) && (end === scope.length || scope.charCodeAt(end) === 32)) return true
    from = i + 1
  }
}
