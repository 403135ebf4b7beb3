// `admin-conformance explore` end to end against the bundled mock: the clean mock gives no finding; a
// handful of faults of the catalog are found on their own, value faults among them (by the filters' own
// rules, the target's clock and sessions, the model's same item, a report's context) and an error text
// (advisory, decision 0011); what is missed is in docs/findings.md; a finding saved as a case file replays against another target; the
// exit codes; no token in the output. The full fault matrix is scripts/dev/explore-faults.ts (run by hand).
import t from 'tap'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { run } from '../../../scripts/explore/main.ts'
import { faultProof } from '../../../scripts/explore/fault-proof.ts'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await run(args, { out: (s) => void (out += s), err: (s) => void (err += s) }, env)
  return { code, out, err }
}

const work = mkdtempSync(path.join(tmpdir(), 'ac-explore-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

t.test("the clean mock: no finding; a handful of faults found on their own, value faults by the filters' own rules", async (t) => {
  // (a few families only: the test's cost stays small; the script runs every case)
  const families = ['/users', '/compat-sessions', '/event_reports', '/user_reports']
  const { clean, faults } = await faultProof({
    versions: { mas: 'v1.22.0', hs: '1.160.0' },
    random: 2,
    only: [
      'error-envelope-flat',
      'reports-not-found-500',
      'hs-auth-missing-token-403',
      'pagination-first-and-last-accepted',
      'reports-extra-key',
      'reports-dir-ignored',
      'pagination-off-by-one',
      'filter-status-inverted',
      'reports-user-filter-exact',
      'user-reports-single-users-swapped',
      'reports-null-score-as-zero',
      'registration-tokens-expiry-ignores-time',
      'oauth2-clients-active-counts-finished',
      'context-wrong-event',
      'user-reports-not-found-message',
    ],
    cases: (c) => families.some((f) => c.template.includes(f)),
  })
  t.ok(clean.sent > 300, `the clean mock: ${clean.sent} requests judged`)
  t.same(
    clean.findings.map((f) => `${f.request} → ${f.answer.status}`),
    [],
    'no finding against the clean mock',
  )
  const found = Object.fromEntries(faults.map((f) => [f.fault, f]))
  for (const name of [
    'error-envelope-flat',
    'reports-not-found-500',
    'hs-auth-missing-token-403',
    'pagination-first-and-last-accepted',
    'reports-extra-key',
    'reports-dir-ignored',
    'pagination-off-by-one',
  ]) {
    t.ok(found[name]?.found, `${name} found: ${found[name]?.first ?? 'no finding'}`)
  }
  // value oracles: the filtered walk against the unfiltered walk filtered by the filter's rule; a fetched
  // item against its listing item
  for (const name of ['filter-status-inverted', 'reports-user-filter-exact', 'user-reports-single-users-swapped']) {
    t.ok(found[name]?.found, `${name} found: ${found[name]?.first ?? 'no finding'}`)
    t.match(found[name]?.first ?? '', /listing-invariant; target-defect/, `${name}: a value finding of the target`)
  }
  t.match(found['filter-status-inverted']?.first ?? '', /filter\[status\]=/, 'filter-status-inverted: found with the filter')
  t.match(found['user-reports-single-users-swapped']?.first ?? '', /user_reports\/\d+ /, 'the single user report fetched')
  t.ok((found['reports-not-found-500']?.findings ?? 0) >= 2, 'reports-not-found-500: the known overflow defect and the unknown-id 500')
  t.match(found['reports-dir-ignored']?.first ?? '', /listing-invariant/, 'a listing walked in pages: the order dir promises')
  // values the listing alone cannot check: the same item as the model lists it, the target's clock, the
  // sessions listing, the context of a listed report; and an error text (advisory)
  for (const [name, shown] of [
    ['reports-null-score-as-zero', /event_reports\?limit=10&dir=f .*listing-invariant; target-defect/],
    ['registration-tokens-expiry-ignores-time', /filter\[expired\]=true.*listing-invariant; target-defect/],
    ['oauth2-clients-active-counts-finished', /filter\[has-active-sessions\]=true.*listing-invariant; target-defect/],
    ['context-wrong-event', /\/context\/.*listing-invariant; target-defect/],
    ['user-reports-not-found-message', /user_reports\/\d+ .*→ 404 \(model-text; target-defect\)/],
  ] as const) {
    t.ok(found[name]?.found, `${name} found: ${found[name]?.first ?? 'no finding'}`)
    t.match(found[name]?.first ?? '', shown, `${name}: by its oracle`)
  }
})

t.test('a finding saved as a case file replays against any target', async (t) => {
  const cases = path.join(work, 'cases')
  const json = path.join(work, 'report.json')
  const junit = path.join(work, 'explore.xml')
  const found = await cli([
    '--area',
    'reports',
    '--mock-fault',
    'reports-not-found-500',
    '--random',
    '0',
    '--save-cases',
    cases,
    '--json',
    json,
    '--junit',
    junit,
  ])
  const xml = readFileSync(junit, 'utf8')
  t.match(
    xml,
    /<testcase classname="explore" name="GET \/_synapse\/admin\/v1\/event_reports\/\{report_id\}"[^>]*><failure message=/,
    'JUnit: the operation with the defect fails',
  )
  t.match(
    xml,
    /<skipped message="[^"]*event-report-listing-overflow-500"\/>/,
    'JUnit: an operation with only a known defect is skipped, naming it',
  )
  t.equal(found.code, 1, 'exit 1: a defect of the target')
  t.match(
    found.out,
    /B-001 known defect event-report-id-overflow-500: GET \/_synapse\/admin\/v1\/event_reports\/\{report_id\}/,
    'the worst first: a 5xx, the smallest request, the first generated',
  )
  t.match(
    found.out,
    /defect of the target: GET \/_synapse\/admin\/v1\/event_reports\/\{report_id\} \(report_id/,
    'the unknown id answering 500: a defect of the target',
  )
  t.match(
    found.out,
    /curl -sS -i -g '[^']+\/_synapse\/admin\/v1\/event_reports\/[^']+' -H "Authorization: Bearer \$HS_ADMIN_TOKEN"/,
    'a curl line, the token from the environment',
  )
  t.match(found.out, /known defect event-report-id-overflow-500/, 'the known defect named by its row')
  const report = JSON.parse(readFileSync(json, 'utf8')) as { findings: { id: string; cls: string }[]; requests: { target: number } }
  const defect = report.findings.find((f) => f.cls === 'target-defect')
  t.ok(defect, 'a defect of the target among the findings')
  const files = readdirSync(cases).sort()
  t.equal(files.length, report.findings.length, 'one case file per finding')
  const first = path.join(cases, `${defect!.id}.json`)
  const again = await cli(['--area', 'reports', '--mock-fault', 'reports-not-found-500', '--replay', first])
  t.equal(again.code, 1, 'the fault is still there: exit 1')
  t.match(again.out, /1 finding\(s\): 1 defect\(s\) of the target/)
  const fixed = await cli(['--area', 'reports', '--replay', first])
  t.equal(fixed.code, 0, 'against the clean mock the case passes: exit 0')
  t.match(fixed.out, /1 cases, 1 sent/)
  const bad = await cli(['--replay', path.join(work, 'nope.json')])
  t.equal(bad.code, 2, 'a missing case file is a usage error')
})

t.test('a live target: tokens from the environment never shown; budget, unreachable, usage', async (t) => {
  const m = await startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile: null }, {}))
  t.teardown(() => m.close())
  const env = { HS_ADMIN_TOKEN: m.options.hsAdminToken, HS_USER_TOKEN: m.options.hsUserToken }
  const json = path.join(work, 'live.json')
  const r = await cli(['--hs-url', m.url, '--random', '0', '--json', json], env)
  t.equal(r.code, 0, 'the mock claiming its default release: only known defects, exit 0')
  t.match(r.out, /known defect event-report-id-overflow-500/)
  const all = r.out + r.err + readFileSync(json, 'utf8')
  for (const tok of Object.values(env)) t.notOk(all.includes(tok), 'no token in the output or the report')
  const strict = await cli(['--hs-url', m.url, '--random', '0', '--strict', '--max-requests', '100000'], env)
  t.equal(strict.code, 1, '--strict: the known defects fail the command')
  const budget = await cli(['--hs-url', m.url, '--max-requests', '20'], env)
  t.equal(budget.code, 1, 'a spent budget fails')
  t.match(budget.out, /incomplete: the request budget/)
  const down = await cli(['--hs-url', 'http://127.0.0.1:9'], env)
  t.equal(down.code, 3, 'an unreachable target: exit 3')
  t.equal((await cli(['--bogus'])).code, 2)
  t.equal((await cli(['--hs-url', m.url, '--mock-fault', 'reports-not-found-500'], env)).code, 2, '--mock-fault is for the bundled mock')
  const help = await cli(['--help'])
  t.equal(help.code, 0)
  t.match(help.out, /--replay FILE/)
})

t.test(
  'with --allow-writes the clean mock gives no finding to act on: the JSON body rejections in plain text are the real ones',
  async (t) => {
    const json = path.join(work, 'writes.json')
    const r = await cli(['--allow-writes', '--sequences', '0', '--area', 'admin', '--json', json])
    const report = JSON.parse(readFileSync(json, 'utf8'))
    const acted = (report.findings as { cls: string; request: string }[]).filter((f) => f.cls === 'model-gap' || f.cls === 'target-defect')
    t.same(
      acted.map((f) => f.request),
      [],
      'no gap of the model, no defect',
    )
    t.equal(r.code, 0, 'exit 0', { err: r.err.slice(-2000) })
  },
)
