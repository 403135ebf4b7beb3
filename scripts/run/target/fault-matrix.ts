// The fault matrix (`run --fault-matrix`): the suites against a clean mock and one mock per fault. Each
// fault is served to the suite folders of the areas whose checks catch it, so that every area passes on
// its own; the verdict and the report have one row per fault, caught or not.
import { AREAS, type Area } from '../../../lib/areas.ts'
import { targetsEnv, type MatrixTarget, type Target } from '../../../lib/target.ts'
import type { MatrixFaultDef, MockHandle } from './mock-handle.ts'
import { countChecks, type Assertion, type CheckResult, type Counts, type ReportHeader } from '../results/results.ts'
import { xml } from '../report/junit.ts'

export interface MatrixFault extends MatrixFaultDef {
  caught: boolean
  /** the named checks that failed against this fault's mock */
  failedChecks: { file: string; check: string }[]
}

export interface MatrixReport extends ReportHeader {
  kind: 'fault-matrix'
  areas: string[]
  clean: { ok: boolean; counts: Counts; failedChecks: { file: string; check: string; failures: Assertion[] }[] }
  faults: MatrixFault[]
  suites: { file: string; ok: boolean; durationMs: number; error?: string }[]
}

/** The areas the fault matrix covers unless --area says otherwise. */
export const MATRIX_AREAS: Area[] = ['admin', 'reports']

/**
 * Which run areas catch a fault. The auth faults sit in both catalogs: an auth fault of the auth
 * service is caught by the admin suites, one of the homeserver by the reports suites.
 */
export async function faultAreas(): Promise<Map<string, Area[]>> {
  const [{ FAULTS }, { homeserverFaults }] = await Promise.all([
    import('../../../mock/faults/registry.ts'),
    import('../../../mock/faults/homeserver.ts'),
  ])
  const hs: ReadonlySet<string> = new Set(homeserverFaults.map((f) => f.name))
  const byArea: Record<string, Area[]> = { admin: ['admin'], homeserver: ['reports'], log: ['log'], upgrade: ['upgrade'] }
  return new Map(FAULTS.map((f) => [f.name, f.area === 'auth' ? [hs.has(f.name) ? 'reports' : 'admin'] : (byArea[f.area] ?? [])]))
}

/**
 * The faults whose catching areas are among the selected ones and that apply at the releases the mock
 * claims (a fault of a route or filter a release lacks has nothing to break there); `only` narrows it to
 * the named faults (`--fault-matrix --mock-fault NAME`).
 */
export async function wantedFaults(
  selected: Area[] | undefined,
  claimed?: { hs: string; mas: string },
  only: string[] = [],
): Promise<MatrixFaultDef[]> {
  const areas = selected ?? MATRIX_AREAS
  const [{ FAULTS, faultAppliesAt, faultVersionsText }, map] = await Promise.all([import('../../../mock/faults/registry.ts'), faultAreas()])
  return FAULTS.filter((f) => (map.get(f.name) ?? []).some((a) => areas.includes(a)))
    .filter((f) => !claimed || faultAppliesAt(f, claimed))
    .filter((f) => only.length === 0 || only.includes(f.name))
    .map((f) => ({
      name: f.name,
      area: f.area,
      description: f.description,
      areas: (map.get(f.name) ?? []).filter((a) => areas.includes(a)),
      versions: faultVersionsText(f),
      ...(f.differsBy ? { differsBy: f.differsBy } : {}),
    }))
}

/** AC_TARGETS: every mock a target; a fault's mock serves only the suite folders of its catching areas. */
export function matrixEnv(mocks: MockHandle[], base: Target): Record<string, string> {
  const list: MatrixTarget[] = mocks.map((m) => ({
    label: m.label,
    dirs: m.fault ? m.fault.areas.map((a) => AREAS[a].dir) : [],
    target: { ...base, mas: { url: m.url }, hs: { ...base.hs!, url: m.url }, mockControlUrl: m.url, logFile: m.logFile },
  }))
  return targetsEnv(list)
}

export function matrixFaults(mocks: MockHandle[], perTarget: Map<string, { file: string; checks: CheckResult[] }[]>): MatrixFault[] {
  return mocks
    .filter((m) => m.fault)
    .map((m) => {
      const failedChecks = (perTarget.get(m.label) ?? []).flatMap((x) =>
        x.checks.filter((c) => c.outcome === 'fail').map((c) => ({ file: x.file, check: c.name })),
      )
      return { ...m.fault!, caught: failedChecks.length > 0, failedChecks }
    })
}

export function cleanResult(perTarget: Map<string, { file: string; checks: CheckResult[] }[]>, crashed: number): MatrixReport['clean'] {
  const clean = (perTarget.get('clean') ?? []).flatMap((x) => x.checks.map((c) => ({ file: x.file, c })))
  const counts = countChecks(clean.map((x) => x.c))
  return {
    ok: counts.fail === 0 && counts.checks > 0 && crashed === 0,
    counts,
    failedChecks: clean.filter((x) => x.c.outcome === 'fail').map((x) => ({ file: x.file, check: x.c.name, failures: x.c.failures })),
  }
}

/** The matrix's human summary. */
export function matrixLines(m: MatrixReport, crashed: { file: string; error?: string }[], seconds: (ms: number) => string): string[] {
  const c = m.clean.counts
  const lines = ['', `clean mock: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped of ${c.checks} checks`]
  for (const x of m.clean.failedChecks) lines.push(`  ✗ ${x.file}: ${x.check}`)
  for (const s of crashed) lines.push(`  ✗ ${s.file}: ${s.error}`)
  lines.push('', 'faults:')
  const width = Math.max(0, ...m.faults.map((f) => f.name.length))
  for (const f of m.faults) {
    lines.push(
      `  ${f.caught ? 'caught' : 'MISSED'}  ${f.name.padEnd(width)}  ${f.caught ? `${f.failedChecks.length} check(s), e.g. ${f.failedChecks[0]!.check}` : `no check of ${f.areas.join(', ')} failed`}`,
    )
  }
  const caught = m.faults.filter((f) => f.caught).length
  lines.push('', `${caught} of ${m.faults.length} faults caught; clean mock ${m.clean.ok ? 'passes' : 'FAILS'}; ${seconds(m.durationMs)}`)
  return lines
}

/** JUnit for the matrix: one testcase for the clean mock, one per fault (a missed fault is the failure). */
export function matrixJunit(m: MatrixReport): string {
  const failures = m.faults.filter((f) => !f.caught).length + (m.clean.ok ? 0 : 1)
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>']
  lines.push(
    `<testsuites name="admin-conformance fault matrix" tests="${m.faults.length + 1}" failures="${failures}" time="${(m.durationMs / 1000).toFixed(3)}">`,
  )
  lines.push(`  <testsuite name="fault matrix (${xml(m.areas.join(', '))})" tests="${m.faults.length + 1}" failures="${failures}">`)
  const c = m.clean.counts
  const cleanText = `${c.pass} passed, ${c.fail} failed, ${c.skip} skipped of ${c.checks} checks`
  if (m.clean.ok)
    lines.push(
      `    <testcase classname="clean" name="the clean mock passes every check"><system-out>${xml(cleanText)}</system-out></testcase>`,
    )
  else {
    const text = [cleanText, ...m.clean.failedChecks.map((f) => `${f.file}: ${f.check}`)].join('\n')
    lines.push(
      `    <testcase classname="clean" name="the clean mock passes every check"><failure message="${xml(cleanText)}">${xml(text)}</failure></testcase>`,
    )
  }
  for (const f of m.faults) {
    const open = `    <testcase classname="${xml(f.areas.join(','))}" name="${xml(f.name)}"`
    if (f.caught)
      lines.push(
        `${open}><system-out>${xml(`${f.description}\ncaught by:\n${f.failedChecks.map((x) => `  ${x.file}: ${x.check}`).join('\n')}`)}</system-out></testcase>`,
      )
    else
      lines.push(
        `${open}><failure message="${xml(`not caught: no check of ${f.areas.join(', ')} failed`)}">${xml(f.description)}</failure></testcase>`,
      )
  }
  lines.push('  </testsuite>', '</testsuites>')
  return lines.join('\n') + '\n'
}

export type { MatrixFaultDef } from './mock-handle.ts'
