// The area B suites against a real, unmodified Synapse 1.67.0 (started from its source with Debian's
// packages, see test/fixtures/synapse/launcher.ts): read-only and with --allow-writes both pass, and
// the read-only run sends no mutating request, as Synapse's own access log (every request is logged)
// shows. Skips with the reason when the source (../shared) or the packages (.ci/synapse.sh) are
// missing, unless AC_REQUIRE_SYNAPSE=1 (CI), which turns that into a failure.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { startSynapse, synapseAvailability, SYNAPSE_VERSION, type AccessLine, type RealSynapse } from '../fixtures/synapse/launcher.ts'
import { seedSynapse, type SynapseWorld } from '../fixtures/synapse/world.ts'
import { compareAnswers, PROBES, runProbes, type ProbeAnswer } from '../fixtures/synapse/probes.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))
const required = process.env.AC_REQUIRE_SYNAPSE === '1'
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

interface RunReport {
  runId: string
  exitCode: number
  counts: { checks: number; pass: number; fail: number; skip: number }
  suites: { file: string; checks: { name: string; ok?: boolean; outcome?: string }[] }[]
  /** what the run left on the target (runners that list it) */
  leftovers?: unknown[]
}

interface Run {
  code: number | null
  report: RunReport | undefined
  output: string
}

/** `admin-conformance run` against the server, tokens in the environment only. */
function runSuites(s: RealSynapse, w: SynapseWorld, work: string, name: string, extra: string[]): Promise<Run> {
  const out = join(work, `${name}.json`)
  const args = ['bin/admin-conformance.mjs', 'run', '--hs-url', s.url, '--area', 'reports', '--reporter', 'json', '--output', out, '--jobs', '2', ...extra]
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

const avail = synapseAvailability()
if (!avail.ok) {
  if (required) t.fail(`a real Synapse is required here (AC_REQUIRE_SYNAPSE=1) but cannot start: ${avail.reason}`)
  else t.pass(`skipped: no real Synapse ${SYNAPSE_VERSION} here (${avail.reason}); set AC_REQUIRE_SYNAPSE=1 to make this a failure`, { skip: true })
} else {
  const work = mkdtempSync(join(tmpdir(), 'ac-real-synapse-'))
  const started = Date.now()
  const s = await startSynapse(avail)
  t.teardown(async () => {
    await s.stop()
    rmSync(work, { recursive: true, force: true })
  })
  const w = await seedSynapse(s)
  t.comment(`Synapse ${SYNAPSE_VERSION} on ${s.url}: started and seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`)

  t.test('the recorded probe answers (the fixture the mock is compared with) still hold', async (t) => {
    const fixture = JSON.parse(readFileSync(join(root, `test/fixtures/synapse/probes-${SYNAPSE_VERSION}.json`), 'utf8')) as { answers: Record<string, ProbeAnswer> }
    const got = await runProbes(s.url, { admin: w.admin.accessToken, user: w.bob.accessToken })
    for (const p of PROBES) {
      const want = fixture.answers[p.name]
      if (!want) t.fail(`${p.name}: not in the fixture; re-record it with npx tsx test/fixtures/synapse/record-probes.ts`)
      else t.same(compareAnswers(want, got[p.name]!), [], `${p.method} ${p.path} (${p.name})`)
    }
  })

  t.test('the server is the released 1.67.0 and holds the seeded reports', async (t) => {
    const v = await request(`${s.url}/_synapse/admin/v1/server_version`)
    const body = (await v.body.json()) as Record<string, unknown>
    t.equal(body.server_version, SYNAPSE_VERSION, 'server_version is the release string')
    t.type(body.python_version, 'string', 'python_version is there before v1.94.0')
    const list = await admin(s, w, '/event_reports?dir=f&limit=1000')
    t.equal(list.status, 200)
    t.equal(list.json.total, w.listed, `${w.listed} reports listed: the one in a room that does not exist is not`)
    const reports = list.json.event_reports as { id: number; event_id: string; sender: string | null; score: unknown; reason: unknown }[]
    const unknown = w.filed.find((f) => f.note === 'unknown event')!
    const ghost = reports.find((r) => r.event_id === unknown.eventId)
    t.ok(ghost, 'the report on an unknown event is listed')
    t.equal(ghost?.sender, null, 'with sender null')
    t.equal((await admin(s, w, `/event_reports/${ghost?.id}`)).status, 404, 'and GET of it answers 404')
    const empty = reports.filter((r) => r.score === null && r.reason === null)
    t.equal(empty.length, w.filed.filter((f) => f.note === 'an empty body').length, 'reports filed with {} list score and reason as null')
    t.ok(reports[0]!.id >= 2, 'the first report id on a fresh database is 2 or more', { first: reports[0]!.id })
  })

  t.test('read-only: the area B suites pass and send no mutating request', async (t) => {
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
    t.comment(`read-only: ${run.report.counts.pass} passed, ${run.report.counts.skip} skipped, ${run.report.counts.fail} failed; ${lines.length} requests, all ${[...new Set(lines.map((l) => l.method))].join('/')}`)
  })

  t.test('--allow-writes: the area B suites pass', async (t) => {
    const before = await admin(s, w, '/event_reports?limit=0')
    const run = await runSuites(s, w, work, 'writes', ['--allow-writes', '--allow-token-in-url'])
    t.ok(run.report, 'the run wrote its JSON report', { output: run.output.slice(-3000) })
    t.equal(run.code, 0, 'exit code 0', { failures: failures(run.report), output: run.output.slice(-3000) })
    t.equal(run.report?.counts.fail, 0, 'no check failed', { failures: failures(run.report) })
    if (!run.report) return
    const lines = linesOf(s, run.report.runId)
    const writes = lines.filter((l) => !READ_METHODS.has(l.method))
    t.ok(writes.length > 0, `the write run did write (${writes.length} mutating requests)`)
    // 1.67 cannot delete a report: what the run filed stays, and the run must say so.
    const grown = (await admin(s, w, '/event_reports?limit=0')).json.total - before.json.total
    if (run.report.leftovers === undefined) t.comment(`this runner does not list leftovers; the run left ${grown} reports`)
    else t.ok(grown === 0 || run.report.leftovers.length > 0, `the ${grown} reports the run could not delete are listed as left behind`, { leftovers: run.report.leftovers })
    t.comment(`writes: ${run.report.counts.pass} passed, ${run.report.counts.skip} skipped, ${run.report.counts.fail} failed; mutating requests: ${[...new Set(writes.map((l) => `${l.method} ${l.uri.replace(/\/[^/]*$/, '/…')} ${l.status}`))].join(', ')}`)
  })

  t.test('--allow-writes again: a second write run on the same server passes too', async (t) => {
    const run = await runSuites(s, w, work, 'writes-again', ['--allow-writes', '--allow-token-in-url'])
    t.equal(run.code, 0, 'exit code 0', { failures: failures(run.report), output: run.output.slice(-3000) })
    t.equal(run.report?.counts.fail, 0, 'no check failed', { failures: failures(run.report) })
  })
}
