// GraphQL operation detection: which operation a request runs, for the request log's graphql.* fields.

export interface GraphqlOperation {
  type: 'query' | 'mutation' | 'subscription'
  name?: string
}

const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57)

/** Index after the string starting at `at`, or -1 when it is not closed. */
function skipString(doc: string, at: number): number {
  const n = doc.length
  if (doc.startsWith('"""', at)) {
    const end = doc.indexOf('"""', at + 3)
    return end === -1 ? -1 : end + 3
  }
  let k = at + 1
  while (k < n && doc.charCodeAt(k) !== 34) k += doc.charCodeAt(k) === 92 ? 2 : 1
  return k >= n ? -1 : k + 1
}

/** Index after the ')' matching the '(' at `at` (strings skipped), or -1 when it is not closed. */
function skipParens(doc: string, at: number): number {
  let level = 0
  let i = at
  while (i < doc.length) {
    const d = doc.charCodeAt(i)
    if (d === 34) {
      i = skipString(doc, i)
      if (i < 0) return -1
      continue
    }
    if (d === 40) level++
    else if (d === 41 && --level === 0) return i + 1
    i++
  }
  return -1
}

/**
 * The operation definitions of a GraphQL document, in order: `query|mutation|subscription [Name]` or
 * the `{ … }` shorthand (an anonymous query) at the top level. Fragments are skipped; strings and
 * comments are not mistaken for keywords. Returns null when the braces do not balance.
 */
export function operationsOf(doc: string): GraphqlOperation[] | null {
  const ops: GraphqlOperation[] = []
  const n = doc.length
  let depth = 0
  let i = 0
  // At the top level: the operation whose keyword was read (until its body opens), and whether its
  // name may still come (right after the keyword only).
  let pending: GraphqlOperation | null = null
  let expectName = false
  let inFragment = false
  while (i < n) {
    const c = doc.charCodeAt(i)
    if (c === 35 /* # */) {
      while (i < n && doc.charCodeAt(i) !== 10 && doc.charCodeAt(i) !== 13) i++
    } else if (c === 34 /* " */) {
      i = skipString(doc, i)
      if (i < 0) return null
    } else if (c === 123 /* { */) {
      if (depth === 0) {
        if (pending) ops.push(pending)
        else if (!inFragment) ops.push({ type: 'query' })
        pending = null
        expectName = false
        inFragment = false
      }
      depth++
      i++
    } else if (c === 125 /* } */) {
      if (--depth < 0) return null
      i++
    } else if (depth === 0 && isNameStart(c)) {
      let j = i + 1
      while (j < n && isNameChar(doc.charCodeAt(j))) j++
      const word = doc.slice(i, j)
      if (pending) {
        if (expectName) pending.name = word
        expectName = false
      } else if (!inFragment) {
        if (word === 'query' || word === 'mutation' || word === 'subscription') {
          pending = { type: word }
          expectName = true
        } else if (word === 'fragment') inFragment = true
      }
      i = j
    } else if (depth === 0 && c === 40 /* ( */) {
      // Variable definitions (or a directive's arguments): skip to the matching ')'.
      i = skipParens(doc, i)
      if (i < 0) return null
      expectName = false
    } else {
      // '@' of a directive, '$', ':', punctuation: no name may follow as the operation's name.
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 44) expectName = false
      i++
    }
  }
  return depth === 0 ? ops : null
}

/** The operation a request executes: the one named by operationName, or the only one. */
export function selectOperation(
  doc: string,
  operationName: string | undefined,
): { ok: true; op: GraphqlOperation } | { ok: false; message: string } {
  const ops = operationsOf(doc)
  if (ops === null || ops.length === 0) return { ok: false, message: 'Syntax error: the document holds no operation' }
  if (operationName !== undefined) {
    const op = ops.find((o) => o.name === operationName)
    return op ? { ok: true, op } : { ok: false, message: `Unknown operation named "${operationName}"` }
  }
  if (ops.length > 1) return { ok: false, message: 'Operation name required in request' }
  return { ok: true, op: ops[0]! }
}
