// The harness catches faults: the suites run against a clean mock (every check passes) and against one
// mock per injected fault of areas admin, homeserver and auth (each fault makes at least one named check
// fail). `run --fault-matrix` does it with one process per suite file, and passes for each area on its
// own (`--area admin`, `--area reports`): each fault is served to the area whose checks catch it. Its
// JUnit report has one testcase per fault. The result is also written to docs/faults.md, so the list of
// faults and the checks that catch them cannot drift.
//
// At the other tested releases (tested-versions.ts) the matrix runs again, one mock per fault as at the
// default, over the faults that apply there and whose behaviour differs by that product's release
// (`differsBy` in the catalog: a versioned route, error text, filter or field sits on their path). The
// other faults break code that is the same at every release (pagination, data shapes), so the default
// releases prove their catch for all; running them again would cost minutes and prove nothing new.
import t from 'tap'
import { mkdtempSync, rmSync, readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { FAULTS, faultAppliesAt, faultVersionsText } from '../../../mock/faults/registry.ts'
import type { MatrixReport } from '../../../scripts/run/index.ts'
import { runCaptured } from './helpers.ts'
import { NEWEST_HS, NEWEST_MAS, TESTED } from './tested-versions.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SUITE_AREAS = new Set(['admin', 'homeserver', 'auth'])
const expected = FAULTS.filter((f) => SUITE_AREAS.has(f.area))

t.ok(expected.length >= 25, `at least 25 faults for the suites to catch (${expected.length})`)

const dir = mkdtempSync(path.join(tmpdir(), 'ac-faults-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const out = path.join(dir, 'admin.json')
const junitFile = path.join(dir, 'reports.xml')
const admin = await runCaptured(['--fault-matrix', '--area', 'admin', '--reporter', 'json', '--output', out])
const reports = await runCaptured(['--fault-matrix', '--area', 'reports', '--reporter', 'junit', '--output', junitFile])
const adminMatrix = JSON.parse(readFileSync(out, 'utf8')) as MatrixReport

// The matrix at the other tested releases: the homeserver's in --area reports, the auth service's in --area admin.
interface VersionRun {
  label: string
  area: 'admin' | 'reports'
  exitCode: number
  matrix: MatrixReport | undefined
  out: string
}
const versionRuns: VersionRun[] = []
const otherHs = [...new Set(TESTED.map((v) => v.hs))].filter((v) => v !== NEWEST_HS)
const otherMas = [...new Set(TESTED.map((v) => v.mas))].filter((v) => v !== NEWEST_MAS)
const claimsOf = (x: { hs?: string; mas?: string }) => ({ hs: x.hs ?? NEWEST_HS, mas: x.mas ?? NEWEST_MAS })
for (const [product, versions, area, flag] of [
  ['hs', otherHs, 'reports', '--mock-hs-version'],
  ['mas', otherMas, 'admin', '--mock-mas-version'],
] as const) {
  for (const v of versions) {
    const claimed = claimsOf({ [product]: v })
    const names = FAULTS.filter(
      (f) =>
        f.differsBy === product &&
        (area === 'admin'
          ? f.area === 'admin' || (f.area === 'auth' && f.name.startsWith('auth-'))
          : f.area === 'homeserver' || f.name.startsWith('hs-auth-')) &&
        faultAppliesAt(f, claimed),
    ).map((f) => f.name)
    const r = await runCaptured(['--fault-matrix', '--area', area, flag, v, ...names.flatMap((n) => ['--mock-fault', n])])
    versionRuns.push({
      label: `${product === 'hs' ? 'Synapse' : 'MAS'} ${v}`,
      area,
      exitCode: r.exitCode,
      matrix: r.result.matrix,
      out: r.stdout.slice(-2000) + r.stderr.slice(-1000),
    })
  }
}
const reportsMatrix = reports.result.matrix!
// Both areas together, as one matrix, for the assertions and the document below.
const matrix: MatrixReport = {
  ...adminMatrix,
  areas: ['admin', 'reports'],
  clean: {
    ok: adminMatrix.clean.ok && reportsMatrix.clean.ok,
    counts: Object.fromEntries(
      Object.keys(adminMatrix.clean.counts).map((k) => [
        k,
        adminMatrix.clean.counts[k as 'pass'] + reportsMatrix.clean.counts[k as 'pass'],
      ]),
    ) as unknown as MatrixReport['clean']['counts'],
    failedChecks: [...adminMatrix.clean.failedChecks, ...reportsMatrix.clean.failedChecks],
  },
  faults: [...adminMatrix.faults, ...reportsMatrix.faults],
  suites: [...adminMatrix.suites, ...reportsMatrix.suites],
}

t.test('the clean mock passes every check', async (t) => {
  t.ok(matrix.clean.counts.checks > 100, `the suites hold many checks (${matrix.clean.counts.checks})`)
  t.equal(matrix.clean.counts.fail, 0, 'no check fails against the clean mock', {
    failed: matrix.clean.failedChecks.map((f) => `${f.file}: ${f.check}`),
  })
  t.equal(matrix.clean.counts.skip, 0, 'no check is skipped against the clean mock (writes on, all tokens given)')
  t.same(
    matrix.suites.filter((s) => s.error),
    [],
    'no suite file crashed',
  )
})

t.test('every fault makes at least one named check fail', async (t) => {
  for (const f of expected) {
    const row = matrix.faults.find((x) => x.name === f.name)
    if (!t.ok(row, `${f.name} was run`)) continue
    t.ok(row!.caught && row!.failedChecks.length > 0, `${f.name} (${f.area}) is caught`, { failedChecks: row!.failedChecks.slice(0, 5) })
  }
})

t.test('each area passes the matrix on its own', async (t) => {
  for (const [area, r, m] of [
    ['admin', admin, adminMatrix],
    ['reports', reports, reportsMatrix],
  ] as const) {
    t.equal(r.exitCode, 0, `--area ${area}: exit code 0`, { out: r.stdout.slice(-2000), stderr: r.stderr.slice(-2000) })
    t.equal(m.ok, true, `--area ${area}: the report says ok`)
    t.same(
      m.faults.filter((f) => !f.caught).map((f) => f.name),
      [],
      `--area ${area}: no fault missed`,
    )
    t.ok(
      m.faults.every((f) => f.areas.length === 1 && f.areas[0] === area),
      `--area ${area}: every fault it ran is mapped to it`,
    )
  }
  const names = matrix.faults.map((f) => f.name)
  t.equal(new Set(names).size, names.length, 'no fault runs in both areas')
})

t.test('the matrix passes at every tested release, over the faults whose behaviour differs by release', async (t) => {
  t.ok(versionRuns.length >= 4, `${versionRuns.length} other releases`)
  for (const r of versionRuns) {
    t.equal(r.exitCode, 0, `${r.label} (--area ${r.area}): exit code 0`, { out: r.out })
    const m = r.matrix
    if (!t.ok(m, `${r.label}: a matrix report`)) continue
    t.equal(m!.clean.counts.fail, 0, `${r.label}: the clean mock passes`, { failed: m!.clean.failedChecks.map((f) => f.check) })
    t.ok(m!.faults.length > 0, `${r.label}: ${m!.faults.length} faults served`)
    t.same(
      m!.faults.filter((f) => !f.caught).map((f) => f.name),
      [],
      `${r.label}: every fault caught`,
    )
  }
  // A fault outside its releases is not served there (nothing to break): DELETE before v1.79.0.
  const at167 = versionRuns.find((r) => r.label === 'Synapse 1.67.0')?.matrix
  t.notOk(
    at167?.faults.some((f) => f.name === 'reports-delete-keeps-report'),
    'Synapse 1.67.0: the DELETE fault is not served (no DELETE before v1.79.0)',
  )
})

t.test('the JUnit report of the matrix has one testcase per fault', async (t) => {
  const xml = readFileSync(junitFile, 'utf8')
  const cases = [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"/g)].map((m) => m[2])
  t.equal(cases.length, reportsMatrix.faults.length + 1, `${reportsMatrix.faults.length} faults and the clean mock`)
  t.same(cases.slice(1).sort(), reportsMatrix.faults.map((f) => f.name).sort(), 'the testcases are the faults')
  t.match(xml, new RegExp(`<testsuites [^>]*tests="${reportsMatrix.faults.length + 1}" failures="0"`), 'caught faults are not failures')
  t.match(xml, /caught by:\n {2}suites\/homeserver\//, 'each names the checks that caught it')
})

// docs/faults.md, generated from this run.
const MAX = 6
const rows = matrix.faults.map((f) => {
  const checks = f.failedChecks.map((c) => `\`${c.check}\``)
  const shown = checks.slice(0, MAX).join('<br>') + (checks.length > MAX ? `<br>… and ${checks.length - MAX} more` : '')
  const def = FAULTS.find((x) => x.name === f.name)!
  const caughtAt = [
    `default (Synapse ${NEWEST_HS}, MAS ${NEWEST_MAS})`,
    ...versionRuns.filter((r) => r.matrix?.faults.some((x) => x.name === f.name && x.caught)).map((r) => r.label),
  ]
  return `| \`${f.name}\` | ${f.area} | ${f.description.replace(/\|/g, '\\|')} | ${faultVersionsText(def)} | ${caughtAt.join('<br>')} | ${f.caught ? shown : '**not caught**'} |`
})
const other = FAULTS.filter((f) => !SUITE_AREAS.has(f.area))
const doc = `# Faults of the bundled mock and the checks that catch them

<!-- Generated by test/scripts/run/fault-matrix.test.ts from \`admin-conformance run --fault-matrix --area admin,reports\`. Do not edit by hand: run \`npx tap test/scripts/run/fault-matrix.test.ts\`. -->

Each fault is a plausible server bug that the mock can be started with (\`admin-conformance mock --fault NAME\`,
the control API \`PUT /_mock/faults\`, or \`admin-conformance run --mock-fault NAME\`). The project's test runs the
suites of areas A and B against a clean mock, where all ${matrix.clean.counts.checks} checks pass, and against one mock per fault,
where the checks below fail. \`admin-conformance run --fault-matrix\` repeats it on any machine.

${matrix.faults.length} faults, ${matrix.faults.filter((f) => f.caught).length} caught. "Applies to" is the releases a fault has something to break in
(\`versions\` in its catalog); "Caught at" the releases where the matrix served it and a check caught it: every fault at the
default releases, and the faults whose behaviour differs by release (\`differsBy\`) again at the other tested releases
(${versionRuns.map((r) => r.label).join(', ')}).

| Fault | Area | What goes wrong | Applies to | Caught at | Checks that catch it (default releases) |
|---|---|---|---|---|---|
${rows.join('\n')}

Faults of the other areas are caught by those areas' suites (\`--area log\`, \`--area upgrade\`): ${other.map((f) => `\`${f.name}\``).join(', ')}.
`
const docs = path.join(ROOT, 'docs')
if (!existsSync(docs)) mkdirSync(docs)
const file = path.join(docs, 'faults.md')
if (!existsSync(file) || readFileSync(file, 'utf8') !== doc) writeFileSync(file, doc)
t.pass('docs/faults.md is up to date')
