// Turning each suite file's TAP tree into results as the file ends. In the fault matrix the checks of a
// file are grouped per target (`target: <label>`); the clean mock's are the file's own results.
import { areaOfPath } from '../../../lib/areas.ts'
import { visible, visibleDeep } from '../../../lib/escape.ts'
import type { CheckResult, SuiteResult } from './results.ts'
import { fileDeath, filteredOut, toCheck, toSuite, type TapNode } from './tap-tree.ts'

const TARGET_GROUP = /^target: (.*)$/

/**
 * Every text of a file's tree shown escaped from here on (lib/escape.ts): names, skip and TODO reasons,
 * diagnostics (their newlines kept: a diff is multi-line; the suites escaped the target's own), leftovers.
 * Every reporter and the terminal read the results made from it.
 */
function escapeTree(n: TapNode): void {
  n.name = visible(n.name)
  const r = n.result
  if (r) {
    r.name = visible(r.name)
    if (typeof r.skip === 'string') r.skip = visible(r.skip)
    if (typeof r.todo === 'string') r.todo = visible(r.todo)
    if (r.diag) r.diag = visibleDeep(r.diag, { newlines: 'keep' })
  }
  n.leftovers = n.leftovers.map((l) => visibleDeep(l))
  n.children.forEach(escapeTree)
}

export class Collector {
  readonly suites: SuiteResult[] = []
  /** matrix: target label → each file's checks against it */
  readonly perTarget = new Map<string, { file: string; checks: CheckResult[] }[]>()
  /** every check name each file registered (also those --grep left out), for the name cache */
  readonly names = new Map<string, string[]>()

  constructor(
    private readonly matrix: boolean,
    private readonly strict: boolean,
  ) {}

  private add(label: string, file: string, checks: CheckResult[]): void {
    this.perTarget.set(label, [...(this.perTarget.get(label) ?? []), { file, checks }])
  }

  /** One finished suite file: its result, also kept in `suites`. */
  file(n: TapNode): SuiteResult {
    escapeTree(n)
    const own: CheckResult[] = []
    const names: string[] = []
    for (const c of n.children) {
      if (!c.result) continue
      const m = TARGET_GROUP.exec(c.name)
      if (this.matrix && m) {
        this.add(
          m[1]!,
          n.name,
          c.children.filter((x) => x.result && !filteredOut(x)).map((x) => toCheck(x, this.strict)),
        )
        if (m[1] === 'clean') names.push(...c.children.filter((x) => x.result).map((x) => x.name))
      } else {
        names.push(c.name)
        if (!filteredOut(c)) own.push(toCheck(c, this.strict))
      }
    }
    if (this.matrix && own.length) this.add('clean', n.name, own)
    const checks = this.matrix ? (this.perTarget.get('clean') ?? []).filter((x) => x.file === n.name).flatMap((x) => x.checks) : own
    const s = toSuite(n, checks)
    // In the matrix a suite process fails because the faults' checks fail; that is no crash (a real
    // crash or time-out still is).
    if (
      this.matrix &&
      s.error &&
      !fileDeath(n.result?.diag) &&
      n.children.some((c) => TARGET_GROUP.test(c.name) && c.result && !c.result.ok)
    ) {
      delete s.error
      s.ok = s.fail === 0
    }
    this.names.set(n.name, names)
    this.suites.push(s)
    return s
  }

  /**
   * The files with no result: after an interruption they were not run (no failure); otherwise the
   * runner itself died and they failed.
   */
  finish(files: readonly string[], interrupted: boolean, how: string, deadline?: string): void {
    for (const s of this.suites) {
      // A file the run's deadline stopped did not fail either: it was not run to its end.
      if (deadline && s.error?.startsWith("stopped by the run's deadline")) {
        s.notRun = s.error
        delete s.error
        s.ok = s.fail === 0
      }
      // A file killed by the interruption did not fail: it did not finish.
      if (interrupted && s.error && /killed by SIG|exited with code (130|143)|timed out/.test(s.error) && s.fail === 0) {
        delete s.error
        s.notRun = 'interrupted before it finished'
      }
    }
    for (const f of files) {
      if (this.suites.some((s) => s.file === f)) continue
      const base = {
        file: f,
        area: areaOfPath(f) ?? 'other',
        ok: false,
        durationMs: 0,
        pass: 0,
        fail: 0,
        skip: 0,
        deviation: 0,
        checks: [],
        leftovers: [],
      } satisfies SuiteResult
      this.suites.push(
        interrupted
          ? { ...base, notRun: 'interrupted before it ran' }
          : deadline
            ? { ...base, notRun: `the run's deadline (${deadline}) passed before it ran` }
            : { ...base, error: `no result (tap exited with ${how})` },
      )
    }
    this.suites.sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file))
  }
}
