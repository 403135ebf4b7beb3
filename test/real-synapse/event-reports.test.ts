// The area B and upgrade suites against a real, unmodified Synapse from Debian's package (the release
// Debian ships when the root filesystem was made; see test/fixtures/synapse/launcher.ts): read-only, with
// --allow-writes, and with writes a second time all pass, the read-only run sends no mutating request (as
// Synapse's own access log, which logs every request, shows), and what the writes could not undo is listed.
// The pre-upgrade check fails, naming the update, while a fresh database runs its background updates.
// The mock claiming the same release answers every data-independent probe as the real server does.
// Skips with the reason when the root filesystem (.ci/synapse.sh) is missing, unless AC_REQUIRE_SYNAPSE=1
// (CI), which turns that into a failure.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { compareVersions } from '../../lib/versions.ts'
import {
  startSynapse,
  synapseAvailability,
  UPDATES_DONE_LINE,
  waitForBackgroundUpdates,
  type AccessLine,
  type RealSynapse,
} from '../fixtures/synapse/launcher.ts'
import { seedSynapse, type SynapseWorld } from '../fixtures/synapse/world.ts'
import { compareAnswers, PROBES, runProbes } from '../fixtures/synapse/probes.ts'
import { ADMIN_TOKEN, USER_TOKEN, startHs, whoami } from '../mock/homeserver/helpers.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))
const required = process.env.AC_REQUIRE_SYNAPSE === '1'
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

interface RunReport {
  runId: string
  exitCode: number
  counts: { checks: number; pass: number; fail: number; skip: number }
  suites: { file: string; checks: { name: string; ok?: boolean; outcome?: string; diag?: unknown }[] }[]
  /** what the run left on the target (runners that list it) */
  leftovers?: unknown[]
}

interface Run {
  code: number | null
  report: RunReport | undefined
  output: string
}

/** `admin-conformance run` against the server, tokens in the environment only. */
function runSuites(s: RealSynapse, w: SynapseWorld, work: string, name: string, extra: string[], area = 'reports,upgrade'): Promise<Run> {
  const out = join(work, `${name}.json`)
  const args = [
    'bin/admin-conformance.mjs',
    'run',
    '--hs-url',
    s.url,
    '--area',
    area,
    '--reporter',
    'json',
    '--output',
    out,
    '--jobs',
    '2',
    ...extra,
  ]
  const env: NodeJS.ProcessEnv = { ...process.env, HS_ADMIN_TOKEN: w.admin.accessToken, HS_USER_TOKEN: w.bob.accessToken }
  for (const k of ['MAS_URL', 'MAS_ADMIN_TOKEN', 'MAS_USER_TOKEN', 'HS_URL']) delete env[k]
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (b: Buffer) => (output += b.toString()))
    child.stderr.on('data', (b: Buffer) => (output += b.toString()))
    child.on('close', (code) => {
      let report: RunReport | undefined
      try {
        report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
      } catch {
        report = undefined
      }
      resolve({ code, report, output })
    })
  })
}

function failures(r: RunReport | undefined): string[] {
  return (r?.suites ?? []).flatMap((s) => s.checks.filter((c) => c.outcome === 'fail' || c.ok === false).map((c) => `${s.file}: ${c.name}`))
}

/** The access-log lines of one run: its user agent carries the run id. */
function linesOf(s: RealSynapse, runId: string): AccessLine[] {
  return s.accessLines().filter((l) => l.userAgent.includes(`run/${runId}`))
}

async function admin(s: RealSynapse, w: SynapseWorld, path: string): Promise<{ status: number; json: any }> {
  const res = await request(`${s.url}/_synapse/admin/v1${path}`, { headers: { authorization: `Bearer ${w.admin.accessToken}` } })
  return { status: res.statusCode, json: await res.body.json() }
}

/** The names of the background updates running now (empty when none). */
async function runningUpdates(s: RealSynapse, w: SynapseWorld): Promise<string[]> {
  const st = await admin(s, w, '/background_updates/status')
  return Object.values((st.json?.current_updates ?? {}) as Record<string, { name: string }>).map((u) => u.name)
}

const avail = synapseAvailability()
if (!avail.ok) {
  if (required) t.fail(`a real Synapse is required here (AC_REQUIRE_SYNAPSE=1) but cannot start: ${avail.reason}`)
  else t.pass(`skipped: no real Synapse here (${avail.reason}); set AC_REQUIRE_SYNAPSE=1 to make this a failure`, { skip: true })
} else {
  const work = mkdtempSync(join(tmpdir(), 'ac-real-synapse-'))
  const started = Date.now()
  const s = await startSynapse(avail)
  t.teardown(async () => {
    await s.stop()
    rmSync(work, { recursive: true, force: true })
  })
  const w = await seedSynapse(s)
  const release = s.version
  t.comment(
    `Synapse ${release} (Debian's matrix-synapse) on ${s.url}: started and seeded in ${((Date.now() - started) / 1000).toFixed(1)} s; ${w.filed.length} event reports filed, ${w.refused.length} refused, ${w.userReports.length} user reports`,
  )

  t.test('while a fresh database runs its background updates, the pre-upgrade check fails naming the update', async (t) => {
    const running = await runningUpdates(s, w)
    if (running.length === 0) {
      t.comment('the background updates had already ended: nothing to show')
      return
    }
    const run = await runSuites(s, w, work, 'updates-running', [], 'upgrade')
    t.equal(run.code, 1, 'exit code 1: an update is running', { output: run.output.slice(-3000) })
    const failed = (run.report?.suites ?? []).flatMap((f) => f.checks.filter((c) => c.outcome === 'fail' || c.ok === false))
    t.ok(failed.length > 0, 'a check failed', { counts: run.report?.counts })
    // Updates follow each other quickly on a fresh database: the one named is whichever ran at that read.
    const named = /running: (\w+): (\w+)/.exec(run.output)
    t.ok(named, `the failure names the database and the running update (before the run: ${running.join(', ')})`, {
      output: run.output.slice(-3000),
    })
    t.notMatch(run.output, /must be number/, 'no schema error for the update that has just started')
  })

  t.test('the background updates of the fresh database end', async (t) => {
    const { done, running } = await waitForBackgroundUpdates(s, w.admin.accessToken)
    t.ok(done, `Synapse logged "${UPDATES_DONE_LINE}" ${((Date.now() - started) / 1000).toFixed(0)} s after the start`)
    t.same(running, [], 'and its status shows no background update running')
  })

  t.test('the server is the release Debian ships and holds the seeded reports', async (t) => {
    const v = await request(`${s.url}/_synapse/admin/v1/server_version`)
    const body = (await v.body.json()) as Record<string, unknown>
    t.equal(body.server_version, release, 'server_version is the release string of the installed package')
    if (compareVersions(release, '1.94.0') >= 0) t.notOk('python_version' in body, 'no python_version since 1.94.0')
    else t.type(body.python_version, 'string', 'python_version is there before 1.94.0')
    const list = await admin(s, w, '/event_reports?dir=f&limit=1000')
    t.equal(list.status, 200)
    t.equal(list.json.total, w.listed, `${w.listed} reports listed`)
    const reports = list.json.event_reports as { id: number; event_id: string; sender: string | null; score: unknown; reason: unknown }[]
    for (const f of w.filed.filter((x) => x.note !== 'unknown room'))
      t.ok(
        reports.some((r) => r.event_id === f.eventId),
        `the report "${f.note}" is listed`,
      )
    for (const r of w.refused)
      t.notOk(
        reports.some((x) => x.event_id === r.eventId),
        `the refused report "${r.note}" (${r.status} ${r.errcode ?? ''}) is not listed`,
      )
    const empty = reports.filter((r) => r.score === null && r.reason === null)
    t.equal(empty.length, w.filed.filter((f) => f.note === 'an empty body').length, 'reports filed with {} list score and reason as null')
    const unicode = reports.find((r) => r.event_id === w.filed.find((f) => f.note === 'unicode')!.eventId)
    t.equal(unicode?.reason, 'spam 🚩 日本語 עברית \u202ereversed\u202c done', 'a unicode reason is kept byte for byte')
    if (w.userReports.length > 0) {
      const users = await admin(s, w, '/user_reports?dir=f&limit=100')
      t.equal(users.json.total, w.userReports.length, `the ${w.userReports.length} user reports filed are listed`)
      t.same(
        (users.json.user_reports as { user_id: string; target_user_id: string; reason: string }[]).map((r) => [
          r.user_id,
          r.target_user_id,
          r.reason,
        ]),
        w.userReports.map((r) => [r.reporter, r.target, r.reason]),
        'reporter, target and reason as filed, oldest first',
      )
    } else t.comment(`Synapse ${release} has no user-report call: none seeded`)
  })

  t.test(`the mock claiming ${release} answers every data-independent probe as the real server does`, async (t) => {
    const real = await runProbes(s.url, { admin: w.admin.accessToken, user: w.bob.accessToken, userId: w.bob.userId, server: s.serverName })
    const hs = await startHs({ hsVersion: release, serverName: s.serverName })
    t.teardown(() => hs.close())
    const mocked = await runProbes(hs.url, {
      admin: ADMIN_TOKEN,
      user: USER_TOKEN,
      userId: await whoami(hs, USER_TOKEN),
      server: s.serverName,
    })
    let same = 0
    for (const p of PROBES) {
      const diffs = compareAnswers(real[p.name]!, mocked[p.name]!)
      if (diffs.length === 0) same++
      t.same(diffs, [], `${p.method} ${p.path} (${p.name})`, { real: real[p.name] })
    }
    t.comment(`${same} of ${PROBES.length} probes answered alike by the real ${release} and the mock claiming it`)
  })

  t.test('read-only: the reports and upgrade suites pass and send no mutating request', async (t) => {
    const before = await admin(s, w, '/event_reports?limit=0')
    const run = await runSuites(s, w, work, 'read-only', [])
    t.ok(run.report, 'the run wrote its JSON report', { output: run.output.slice(-3000) })
    t.equal(run.code, 0, 'exit code 0', { failures: failures(run.report), output: run.output.slice(-3000) })
    t.equal(run.report?.counts.fail, 0, 'no check failed', { failures: failures(run.report) })
    t.ok((run.report?.counts.pass ?? 0) > 10, 'checks passed', { counts: run.report?.counts })
    if (!run.report) return
    const lines = linesOf(s, run.report.runId)
    t.ok(lines.length > 20, `Synapse logged the run's requests (${lines.length})`)
    const mutating = lines.filter((l) => !READ_METHODS.has(l.method))
    t.same(
      mutating.map((l) => `${l.method} ${l.uri} → ${l.status}`),
      [],
      'no POST, PUT, PATCH or DELETE in the access log',
    )
    const after = await admin(s, w, '/event_reports?limit=0')
    t.equal(after.json.total, before.json.total, 'the report count is unchanged')
    // The real server's defects the project knows (lib/data/deviations.json) are shown, not hidden or failed.
    t.match(
      run.output,
      /known defect event-report-id-overflow-500/,
      'the 500 for a report id beyond 64 bits is shown as a known defect of this release',
    )
    t.match(
      run.output,
      /known defect user-report-listing-overflow-500/,
      'the 500 for a user-report from or limit beyond 64 bits is shown as a known defect of this release',
    )
    t.match(
      run.output,
      /known defect room-listing-overflow-500/,
      'the 500 for a room-list from or limit beyond 64 bits is shown as a known defect of this release',
    )
    t.comment(
      `read-only: ${run.report.counts.pass} passed, ${run.report.counts.skip} skipped, ${run.report.counts.fail} failed; ${lines.length} requests, all ${[...new Set(lines.map((l) => l.method))].join('/')}`,
    )
  })

  for (const [name, label] of [
    ['writes', '--allow-writes'],
    ['writes-again', '--allow-writes a second time'],
  ] as const) {
    t.test(`${label}: the reports and upgrade suites pass, and what they could not undo is listed`, async (t) => {
      const before = await admin(s, w, '/event_reports?limit=0')
      const run = await runSuites(s, w, work, name, ['--allow-writes', '--allow-token-in-url'])
      t.ok(run.report, 'the run wrote its JSON report', { output: run.output.slice(-3000) })
      t.equal(run.code, 0, 'exit code 0', { failures: failures(run.report), output: run.output.slice(-3000) })
      t.equal(run.report?.counts.fail, 0, 'no check failed', { failures: failures(run.report) })
      if (!run.report) return
      const lines = linesOf(s, run.report.runId)
      const writes = lines.filter((l) => !READ_METHODS.has(l.method))
      t.ok(writes.length > 0, `the write run did write (${writes.length} mutating requests)`)
      const grown = (await admin(s, w, '/event_reports?limit=0')).json.total - before.json.total
      t.ok(
        grown === 0 || (run.report.leftovers?.length ?? 0) > 0,
        `the ${grown} reports the run could not delete are listed as left behind`,
        { leftovers: run.report.leftovers },
      )
      t.comment(
        `${name}: ${run.report.counts.pass} passed, ${run.report.counts.skip} skipped, ${run.report.counts.fail} failed; left behind: ${run.report.leftovers?.length ?? 0}; mutating requests: ${[...new Set(writes.map((l) => `${l.method} ${l.uri.replace(/\/[^/]*$/, '/…')} ${l.status}`))].join(', ')}`,
      )
    })
  }
}
