// The deploy flow end to end against a real Docker engine, with images built here from local files (no
// registry): the bundled mock in the roles of the auth service and the homeserver, PostgreSQL from Debian's
// packages, and images that fail on purpose. Skips (with the reason) when no engine is reachable, unless
// AC_REQUIRE_DOCKER=1 (CI), which turns that into a failure.
import t, { type Test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deploy, type DeployOptions, type DeployResult } from '../../../scripts/deploy/index.ts'
import { engineStatus, listProjectContainers, removeProjectContainers } from '../../../scripts/deploy/engine.ts'
import { freePort } from '../../../scripts/deploy/ports.ts'
import { runnerMissing } from '../../../scripts/deploy/suites.ts'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const MOCK = 'admin-conformance/mock:local'
const PG = 'admin-conformance/postgres:local'
const FAULT_EXIT = 'admin-conformance/fault-exit:local'
const FAULT_SILENT = 'admin-conformance/fault-silent:local'
const required = process.env.AC_REQUIRE_DOCKER === '1'

const engine = await engineStatus(15_000)
if (!engine.ok) {
  if (required) t.fail(`a Docker engine is required here (AC_REQUIRE_DOCKER=1) but none is reachable: ${engine.reason}`)
  else t.pass(`skipped: no Docker engine reachable (${engine.reason}); set AC_REQUIRE_DOCKER=1 to make this a failure`, { skip: true })
} else {
  const client = engine.client
  const work = mkdtempSync(join(tmpdir(), 'ac-deploy-test-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))

  t.before(() => {
    // Images from this checkout; the build scripts print nothing else on success.
    const r = spawnSync('bash', [join(root, 'docker/build-images.sh')], { encoding: 'utf8', timeout: 300_000 })
    if (r.status !== 0) throw new Error(`building the local images failed (${r.status}): ${r.stderr}`)
  })

  let n = 0
  // Runs started here, so that the final sweep touches nothing else (a user's kept deployment, say).
  const runs = new Set<string>()
  async function run(opts: DeployOptions): Promise<{ r: DeployResult; out: string[] }> {
    const out: string[] = []
    const r = await deploy({ outDir: join(work, `run-${++n}`), write: (l) => out.push(l), ...opts })
    runs.add(r.runId)
    return { r, out }
  }
  async function noContainersLeft(t: Test, r: DeployResult) {
    t.same(r.leftovers, [], 'teardown reported nothing left')
    t.same(await listProjectContainers(client, r.runId), [], 'no container of the run exists')
  }
  // Containers that ignore SIGTERM (node as PID 1 before it installs handlers) are killed after stopMs.
  const fast = { healthMs: 60_000, startMs: 60_000, stopMs: 2_000 }

  t.test('full flow: mock in both roles, local PostgreSQL, fixtures, suites, logs, teardown', async (t) => {
    const { r, out } = await run({ masImage: MOCK, hsImage: MOCK, pgImage: PG, standIn: true, timeouts: fast })
    t.equal(r.error, undefined, 'no failure', { error: r.error, output: out.slice(-40) })
    t.equal(r.exitCode, 0, 'exit code 0', { suites: r.suites })
    const names = r.phases.map((p) => p.name)
    for (const p of [
      'preflight',
      'configure',
      'start PostgreSQL',
      'start auth service',
      'start homeserver',
      'bootstrap',
      'collect logs',
      'teardown',
    ]) {
      t.ok(names.includes(p), `phase ${p} timed`)
    }
    t.ok(
      out.some((l) => /start auth service: done in \d+\.\d s/.test(l)),
      'progress shows timings',
    )
    t.match(r.fixtures, { users: 4, rooms: 2, events: 8, reports: 6 })
    t.ok(r.fixtures!.personalSessions >= 2, 'personal sessions created')
    const missing = runnerMissing()
    if (missing)
      t.ok(
        r.suites.every((s) => s.skipped === missing),
        'suites skipped with the reason, the runner being absent',
      )
    else {
      t.same(
        r.suites.map((s) => s.area),
        ['admin', 'reports', 'log'],
        'every area was taken up',
      )
      // An area the runner has no suite files for yet is reported as skipped, with the runner's words.
      for (const s of r.suites) {
        if (s.skipped) t.match(s.skipped, /nothing to run/, `suites ${s.area} skipped: ${s.skipped}`)
        else t.equal(s.exitCode, 0, `suites ${s.area} passed`, { counts: s.counts, failed: failedChecks(s.reportFile) })
      }
      t.ok(
        r.suites.some((s) => s.exitCode === 0 && s.counts && s.counts.passed > 0),
        'checks ran and passed',
      )
    }
    const masLog = readFileSync(r.logFiles.mas!, 'utf8')
    t.match(masLog, /POST|oauth2\/token|api\/admin\/v1/, 'the auth service log was collected')
    t.ok(existsSync(r.logFiles.postgres!), 'PostgreSQL log collected')
    t.ok(
      out.some((l) => l.includes("databases mas and synapse accept the services' login")),
      "databases checked with the services' credentials",
    )
    // No secret in anything printed or collected by the flow.
    const printed = out.join('\n')
    t.notMatch(printed, /\b(mat|mpt|mct|syt)_[A-Za-z0-9]{20,}/, 'no token printed')
    const config = readFileSync(join(r.outDir, 'config', 'mas.yaml'), 'utf8')
    const secret = /client_secret: "([^"]+)"/.exec(config)?.[1]
    t.ok(secret, 'the generated config holds the admin client secret')
    t.notOk(printed.includes(secret!), 'the client secret is never printed')
    await noContainersLeft(t, r)
  })

  t.test('--keep leaves it running and hands out tokens; teardown() removes it later', async (t) => {
    const { r } = await run({ masImage: MOCK, hsImage: MOCK, standIn: true, skipDb: true, keep: true, areas: [], timeouts: fast })
    t.equal(r.error, undefined)
    t.equal(r.kept, true)
    t.equal(r.leftovers.length, 2)
    t.match(r.access, { masAdminToken: /^mat_/, adminClient: { id: /^[0-9A-Z]{26}$/ } })
    const live = await listProjectContainers(client, r.runId)
    t.same(
      live.map((c) => c.state),
      ['running', 'running'],
      'both containers still run',
    )
    const res = await fetch(new URL('api/admin/v1/compat-sessions?page%5Bfirst%5D=1', r.urls.mas), {
      headers: { authorization: `Bearer ${r.access!.masAdminToken}` },
    })
    t.equal(res.status, 200, 'the printed admin token works', { body: (await res.text()).slice(0, 300) })
    await r.teardown()
    t.same(await listProjectContainers(client, r.runId), [], 'teardown removed them')
  })

  t.test('fault: unknown image tag', async (t) => {
    const { r } = await run({
      masImage: 'admin-conformance/mock:no-such-tag',
      hsImage: MOCK,
      standIn: true,
      skipDb: true,
      timeouts: { ...fast, pullMs: 60_000 },
    })
    t.equal(r.exitCode, 3)
    t.equal(r.error?.kind, 'image')
    t.match(r.error?.message, /image 'admin-conformance\/mock:no-such-tag' is not present locally and could not be pulled/)
    await noContainersLeft(t, r)
  })

  t.test('fault: a container exits early; its last log lines are shown', async (t) => {
    const { r, out } = await run({ masImage: FAULT_EXIT, hsImage: MOCK, standIn: true, skipDb: true, timeouts: fast })
    t.equal(r.exitCode, 3)
    t.equal(r.error?.kind, 'start')
    t.match(r.error?.message, /auth service container exited with code 1 before it was healthy/)
    t.ok(
      r.error?.details.some((d) => d.includes('exiting with code 1 on purpose')),
      'last log lines in the details',
    )
    t.ok(
      out.some((l) => l.includes('exiting with code 1 on purpose')),
      'and printed',
    )
    await noContainersLeft(t, r)
  })

  t.test('fault: a port in use', async (t) => {
    const port = await freePort()
    const held = createServer()
    await new Promise<void>((res) => held.listen(port, '127.0.0.1', res))
    t.teardown(() => held.close())
    const { r } = await run({ masImage: MOCK, hsImage: MOCK, standIn: true, skipDb: true, ports: { homeserver: port }, timeouts: fast })
    t.equal(r.exitCode, 3)
    t.equal(r.error?.kind, 'port')
    t.match(r.error?.message, new RegExp(`port ${port} for the homeserver on 127.0.0.1 is already in use`))
    await noContainersLeft(t, r)
  })

  t.test('fault: a health check that never passes', async (t) => {
    const { r } = await run({ masImage: FAULT_SILENT, hsImage: MOCK, standIn: true, skipDb: true, timeouts: { ...fast, healthMs: 3_000 } })
    t.equal(r.exitCode, 3)
    t.equal(r.error?.kind, 'health')
    t.match(
      r.error?.message,
      /auth service health at http:\/\/127\.0\.0\.1:\d+\/health did not pass within 3 s \(last: connection refused\)/,
    )
    t.ok(
      r.error?.details.some((d) => d.includes('never listening')),
      'its log lines are shown',
    )
    await noContainersLeft(t, r)
  })

  t.test('interruption (abort signal) mid-start tears down', async (t) => {
    const ac = new AbortController()
    const out: string[] = []
    const r = await deploy({
      outDir: join(work, 'abort'),
      masImage: MOCK,
      hsImage: MOCK,
      pgImage: PG,
      standIn: true,
      timeouts: fast,
      signal: ac.signal,
      write: (l) => {
        out.push(l)
        // Shortly after the auth service's container is asked for: the abort lands while it is created.
        if (l.includes('start auth service ...')) setTimeout(() => ac.abort('test abort'), 150)
      },
    })
    runs.add(r.runId)
    t.equal(r.exitCode, 130)
    t.equal(r.error?.kind, 'interrupted')
    await noContainersLeft(t, r)
  })

  t.test('CLI: SIGTERM during the run tears down and exits 130', async (t) => {
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin/admin-conformance.mjs'),
        'deploy',
        '--mock-image',
        MOCK,
        '--skip-db',
        '--area',
        'none',
        '--stop-timeout',
        '2',
        '--out',
        join(work, 'cli'),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let text = ''
    let sent = false
    const onData = (c: Buffer) => {
      text += c.toString()
      if (!sent && text.includes('start homeserver ...')) {
        sent = true
        child.kill('SIGTERM')
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    const code = await new Promise<number | null>((res) => child.on('close', res))
    t.ok(sent, 'the signal was sent mid-run')
    t.equal(code, 130, 'exit code 130', { output: text.slice(-2000) })
    t.match(text, /received SIGTERM: stopping and tearing down/)
    const runId = /run ([a-z0-9]+): output in/.exec(text)?.[1]
    t.ok(runId, 'run id printed')
    if (runId) runs.add(runId)
    t.same(await listProjectContainers(client, runId!), [], 'no container of the run is left')
  })

  t.test('CLI: --keep prints URLs and tokens, exits, and leaves the containers running', async (t) => {
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'bin/admin-conformance.mjs'),
        'deploy',
        '--mock-image',
        MOCK,
        '--skip-db',
        '--area',
        'none',
        '--keep',
        '--out',
        join(work, 'cli-keep'),
      ],
      {
        encoding: 'utf8',
        timeout: 180_000,
      },
    )
    t.equal(r.status, 0, 'exit 0', { stderr: r.stderr.slice(-2000) })
    t.match(r.stdout, /auth service\s+http:\/\/127\.0\.0\.1:\d+\//)
    t.match(r.stdout, /MAS_ADMIN_TOKEN=mat_\S+/, 'the admin token is printed in this mode')
    t.match(r.stdout, /HS_ADMIN_TOKEN=\S+/)
    const runId = /label=dev\.admin-conformance\.run=([a-z0-9]+)/.exec(r.stdout)?.[1]
    t.ok(runId, 'the removal command names the run')
    if (runId) runs.add(runId)
    t.notMatch(r.stderr, /\b(mat|mpt|mct)_[A-Za-z0-9]{20,}/, 'progress output stays free of tokens')
    const live = await listProjectContainers(client, runId!)
    t.equal(live.filter((c) => c.state === 'running').length, 2, 'both containers still run after the CLI exited')
    await removeProjectContainers(client, runId!)
    t.same(await listProjectContainers(client, runId!), [])
  })

  t.teardown(async () => {
    // Belt and braces: nothing this file started may outlive it; other runs are left alone.
    for (const id of runs) await removeProjectContainers(client, id).catch(() => {})
  })
}

/** The failed checks of a suite run's JSON report, with their first failure, for a test's diagnostics. */
function failedChecks(file: string | undefined): string[] {
  try {
    const report = JSON.parse(readFileSync(file!, 'utf8')) as {
      suites: { file: string; checks: { name: string; outcome?: string; failures?: unknown[] }[] }[]
    }
    return report.suites.flatMap((f) =>
      f.checks
        .filter((c) => c.outcome === 'fail')
        .map((c) => `${f.file}: ${c.name}: ${JSON.stringify(c.failures?.[0] ?? '').slice(0, 800)}`),
    )
  } catch {
    return []
  }
}
