// The TAP stream of a tap run as a tree (runner → suite files → checks → assertions), and the results
// read from it: outcome of each check, failed and deviating assertions with their diagnostics, skip
// reasons, and the data left behind that the suites announce in `# ac-leftover {json}` comments.
import type { Parser, Result } from 'tap-parser'
import { areaOfPath } from '../../../lib/areas.ts'
import { DEVIATION_PREFIX, parseLeftoverComment, type Leftover } from '../../../lib/target.ts'
import type { Assertion, CheckResult, SuiteResult } from './results.ts'

/** A node of the parsed TAP tree: a subtest (with children) or a plain assertion (a leaf). */
export interface TapNode {
  name: string
  result?: Result
  children: TapNode[]
  /** leftovers announced anywhere inside this node */
  leftovers: Leftover[]
}

export function newNode(name: string): TapNode {
  return { name, children: [], leftovers: [] }
}

/** Attach a parser's subtests and assertions to `node`, recursively; `onChild` sees each finished child. */
export function attach(parser: Parser, node: TapNode, onChild?: (n: TapNode) => void): void {
  const open: TapNode[] = []
  parser.on('child', (cp: Parser) => {
    const n = newNode(cp.name)
    open.push(n)
    attach(cp, n)
  })
  parser.on('comment', (line: string) => {
    const l = parseLeftoverComment(line)
    if (l) node.leftovers.push(l)
  })
  parser.on('assert', (a: Result) => {
    const i = open.findIndex((n) => n.name === a.name)
    const n = i === -1 ? newNode(a.name) : open.splice(i, 1)[0]!
    n.result = a
    node.children.push(n)
    onChild?.(n)
  })
}

/** Every leftover under a node, its own and its descendants'. */
export function leftoversOf(n: TapNode): Leftover[] {
  return [...n.leftovers, ...n.children.flatMap(leftoversOf)]
}

/** Diagnostics without tap's own bookkeeping (harness stack, source excerpt, file positions). */
function cleanDiag(diag: unknown): Record<string, unknown> | undefined {
  if (typeof diag !== 'object' || diag === null) return undefined
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(diag)) if (!['at', 'stack', 'source', 'test'].includes(k)) out[k] = v
  return Object.keys(out).length ? out : undefined
}

function assertion(n: TapNode, r: Result): Assertion {
  const diag = cleanDiag(r.diag)
  return diag ? { name: n.name, diag } : { name: n.name }
}

function isDeviation(r: Result): string | undefined {
  return typeof r.todo === 'string' && r.todo.startsWith(DEVIATION_PREFIX) ? r.todo.slice(DEVIATION_PREFIX.length) : undefined
}

/** The failed and the deviating leaf assertions under a check. */
function assertionsOf(node: TapNode): { failures: Assertion[]; deviations: CheckResult['deviations'] } {
  const failures: Assertion[] = []
  const deviations: CheckResult['deviations'] = []
  const walk = (n: TapNode) => {
    const r = n.result
    if (!r || r.ok || r.skip) return
    const dev = isDeviation(r)
    if (dev !== undefined) return void deviations.push({ ...assertion(n, r), reason: dev })
    if (r.todo) return
    if (n.children.length === 0) failures.push(assertion(n, r))
    else n.children.forEach(walk)
  }
  node.children.forEach(walk)
  const own = node.result
  if (failures.length === 0 && own && !own.ok && !own.todo) failures.push(assertion(node, own))
  return { failures, deviations }
}

/** A check left out by --grep (tap reports it as skipped with the reason "filter: ..."). */
export function filteredOut(n: TapNode): boolean {
  const skip = n.result?.skip
  return typeof skip === 'string' && skip.startsWith('filter: ')
}

export function toCheck(n: TapNode, strict: boolean): CheckResult {
  const a = n.result!
  const { failures, deviations } = assertionsOf(n)
  const c: CheckResult = { name: n.name, outcome: 'pass', ok: true, failures, deviations }
  if (typeof a.time === 'number') c.durationMs = a.time
  const ownDeviation = isDeviation(a)
  if (ownDeviation !== undefined && !a.ok) c.deviations.push({ name: n.name, reason: ownDeviation })
  if (a.skip || (a.todo && ownDeviation === undefined)) {
    c.outcome = 'skip'
    c.skip = typeof a.skip === 'string' ? a.skip : typeof a.todo === 'string' ? `todo: ${a.todo}` : 'skipped'
  } else if (!a.ok && ownDeviation === undefined) c.outcome = 'fail'
  else if (c.deviations.length) c.outcome = strict ? 'fail' : 'deviation'
  c.ok = c.outcome !== 'fail'
  if (strict && c.outcome === 'fail' && c.failures.length === 0)
    c.failures.push(...c.deviations.map((d) => ({ name: d.name, diag: { ...d.diag, deviation: d.reason } })))
  return c
}

/**
 * Why a suite file ended as a whole, from the runner's diagnostics: timed out, stopped by the run's
 * deadline, killed, or crashed (and the check under way when the runner knows it); undefined when
 * nothing of the kind happened (the file ended on its own).
 */
export function fileDeath(diag: unknown): string | undefined {
  const d = (diag ?? {}) as {
    signal?: unknown
    exitCode?: unknown
    expired?: unknown
    message?: unknown
    deadline?: unknown
    check?: unknown
  }
  const during = typeof d.check === 'string' && d.check ? ` during check "${d.check}"` : ''
  if (typeof d.deadline === 'string') return `stopped by the run's deadline (${d.deadline})${during}`
  if (d.expired !== undefined || /timeout/i.test(String(d.message ?? ''))) return `timed out (${String(d.expired ?? d.message)})${during}`
  if (typeof d.signal === 'string' && d.signal) return `killed by ${d.signal}${during}`
  if (typeof d.exitCode === 'number' && d.exitCode !== 0)
    return `the suite process exited with code ${d.exitCode}${during} (a crash: see its output above)`
  return undefined
}

/**
 * tap's own time limit of a file: the check it cut shows a failed `timeout!` assertion whose diagnostics
 * say what expired. The names from the file down to that check, or undefined.
 */
function cutByTimeLimit(n: TapNode, chain: string[] = []): string[] | undefined {
  for (const c of n.children) {
    const d = c.result?.diag as { expired?: unknown } | undefined
    if (c.name === 'timeout!' && c.result && !c.result.ok && d?.expired !== undefined) return chain
    const deeper = cutByTimeLimit(c, [...chain, c.name])
    if (deeper) return deeper
  }
  return undefined
}

export function toSuite(file: TapNode, checks: CheckResult[]): SuiteResult {
  const a = file.result!
  const n = (o: CheckResult['outcome']) => checks.filter((c) => c.outcome === o).length
  const s: SuiteResult = {
    file: file.name,
    area: areaOfPath(file.name) ?? 'other',
    ok: a.ok && n('fail') === 0,
    durationMs: typeof a.time === 'number' ? a.time : 0,
    pass: n('pass'),
    fail: n('fail'),
    skip: n('skip'),
    deviation: n('deviation'),
    checks,
    leftovers: leftoversOf(file),
  }
  // A crash or time-out is reported whatever the file's checks did before it (a file with a failed
  // check that then crashed lost the rest of its checks: that must show).
  const death = a.ok ? undefined : fileDeath(a.diag)
  const cut = death ? undefined : cutByTimeLimit(file)
  // the run's deadline stopped the file: not run to its end, neither passed nor failed
  if (death && typeof (a.diag as { deadline?: unknown } | undefined)?.deadline === 'string') s.notRun = death
  else if (death) s.error = death
  else if (cut) s.error = `timed out (the file's time limit, --timeout)${cut.length ? ` during check "${cut.join(' > ')}"` : ''}`
  else if (!a.ok && s.fail === 0) s.error = 'the suite file failed without a failing check (see its output above)'
  if (s.error) s.ok = false
  else if (s.notRun) s.ok = s.fail === 0
  return s
}
