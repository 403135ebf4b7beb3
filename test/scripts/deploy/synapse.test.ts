// `deploy` with the real, unmodified Synapse from Debian's package in the homeserver role, from the image
// that docker/build-synapse-image.sh imports from the root filesystem of .ci/synapse.sh (no registry). The
// homeserver keeps its own login (--delegation none: no auth service release runs here), no auth service is
// started, and the reports area runs read-only and then with writes on the fixtures the flow made through
// the client API. Skips with the reason without a Docker engine or without the root filesystem, unless
// AC_REQUIRE_DOCKER=1 and AC_REQUIRE_SYNAPSE=1 are both set (CI): then it must run.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseYaml } from 'yaml'
import { deploy } from '../../../scripts/deploy/index.ts'
import { engineStatus, listProjectContainers, parseImage, removeProjectContainers } from '../../../scripts/deploy/engine.ts'
import { parseAccessLines, synapseAvailability } from '../../fixtures/synapse/launcher.ts'
import { compareVersions } from '../../../lib/versions.ts'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const PG = 'admin-conformance/postgres:local'
const required = process.env.AC_REQUIRE_DOCKER === '1' && process.env.AC_REQUIRE_SYNAPSE === '1'
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function skipOrFail(reason: string): void {
  if (required) t.fail(`deploy with the real Synapse must run here (AC_REQUIRE_DOCKER=1, AC_REQUIRE_SYNAPSE=1) but cannot: ${reason}`)
  else t.pass(`skipped: ${reason}; set AC_REQUIRE_DOCKER=1 and AC_REQUIRE_SYNAPSE=1 to make this a failure`, { skip: true })
}

function build(script: string, ...args: string[]): { ok: boolean; out: string } {
  const r = spawnSync('bash', [join(root, 'docker', script), ...args], { encoding: 'utf8', timeout: 600_000 })
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}`.trim() }
}

const engine = await engineStatus(15_000)
const avail = synapseAvailability()
if (!engine.ok) skipOrFail(`no Docker engine reachable (${engine.reason})`)
else if (!avail.ok) skipOrFail(avail.reason)
else {
  const client = engine.client
  const work = mkdtempSync(join(tmpdir(), 'ac-deploy-synapse-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  let runId: string | undefined
  t.teardown(async () => {
    if (runId) await removeProjectContainers(client, runId).catch(() => {})
  })

  const SYNAPSE = `admin-conformance/synapse:${avail.version}`
  t.test(
    `the real Synapse ${avail.version} (Debian) with its own login: fixtures, reports area read-only and with writes, nothing left`,
    async (t) => {
      const t0 = Date.now()
      const image = build('build-synapse-image.sh', SYNAPSE)
      t.ok(image.ok, 'the Synapse image is built (or kept)', { output: image.out.slice(-2000) })
      if (!image.ok) return
      const label = spawnSync(
        'docker',
        ['image', 'inspect', '--format', '{{ index .Config.Labels "dev.admin-conformance.synapse.postgres" }}', SYNAPSE],
        { encoding: 'utf8' },
      ).stdout.trim()
      // PostgreSQL when the image has psycopg2 (python3-psycopg2 installed here), else SQLite in the container.
      const withPg = label === 'yes'
      if (withPg && !(await client.image.exists(parseImage(PG)!))) {
        const pg = build('build-postgres-image.sh', PG)
        t.ok(pg.ok, 'the PostgreSQL image is built', { output: pg.out.slice(-2000) })
        if (!pg.ok) return
      }
      if (!withPg) t.comment('python3-psycopg2 is not in the image: the homeserver uses SQLite (--skip-db)')
      t.comment(`images ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`)

      const out: string[] = []
      const r = await deploy({
        hsImage: SYNAPSE,
        delegation: 'none',
        ...(withPg ? { pgImage: PG } : { skipDb: true }),
        writes: 'both',
        outDir: join(work, 'run'),
        write: (l) => out.push(l),
        timeouts: { healthMs: 120_000, startMs: 60_000, stopMs: 5_000, runMs: 300_000 },
      })
      runId = r.runId
      t.equal(r.error, undefined, 'no failure', { error: r.error, output: out.filter((l) => !l.startsWith('  [')).slice(-40) })
      t.equal(r.exitCode, 0, 'exit code 0')
      t.equal(r.urls.mas, '', 'no auth service')
      t.notOk(
        r.phases.some((p) => p.name === 'start auth service'),
        'no auth service started',
      )
      t.ok(
        out.some((l) => /homeserver delegation: none: .*asked to keep its own login \(--delegation none\)/.test(l)),
        'the mode is said, with why',
      )

      // Fixtures: the admin and 3 users, 2 rooms of 4 messages, 6 reports in every shape, plus one on an
      // event that does not exist where the release accepts it (older ones do; newer ones answer 404).
      t.match(r.fixtures, { users: 4, rooms: 2, events: 8, personalSessions: 0, oauthSessions: 0 })
      t.ok(
        r.fixtures?.reports === 6 || r.fixtures?.reports === 7,
        `6 reports, or 7 with the one on a missing event (${r.fixtures?.reports})`,
      )

      const by = (area: string, allowWrites?: boolean) =>
        r.suites.filter((s) => s.area === area && (allowWrites === undefined || s.allowWrites === allowWrites))
      for (const area of ['admin', 'log']) {
        const [s] = by(area)
        t.match(
          s?.skipped,
          /no auth service in this deployment: the homeserver .* asked to keep its own login/,
          `${area} area skipped with the reason`,
        )
      }
      const [ro] = by('reports', false)
      const [rw] = by('reports', true)
      for (const [name, s] of [
        ['read-only', ro],
        ['with writes', rw],
      ] as const) {
        t.equal(s?.exitCode, 0, `reports area ${name} passed`, { counts: s?.counts, report: s?.reportFile })
        t.ok((s?.counts?.passed ?? 0) > 0 && s?.counts?.failed === 0, `reports ${name}: checks passed, none failed`, { counts: s?.counts })
      }
      t.ok((rw?.counts?.passed ?? 0) > (ro?.counts?.passed ?? 0), 'the write pass checks more than the read-only one', {
        ro: ro?.counts,
        rw: rw?.counts,
      })
      // Releases before 1.79.0 cannot delete reports: what the write checks filed is listed as left behind;
      // later ones delete what they filed. Account data has no delete in the client API at any release:
      // the one type the account-data check set is emptied and listed, and nothing else is left.
      const accountData = (rw?.leftovers ?? []).filter((l) => /^account data .* org\.matrix\.admin-conformance\.probe /.test(l.what))
      t.equal(accountData.length, 1, 'the account-data type the write pass set is listed as left behind', { leftovers: rw?.leftovers })
      const others = (rw?.leftovers ?? []).filter((l) => !accountData.includes(l))
      if (compareVersions(avail.version, '1.79.0') < 0)
        t.ok(others.length > 0, `what ${avail.version} cannot delete is listed`, { leftovers: rw?.leftovers })
      else t.same(others, [], `${avail.version} deletes what the write pass filed: nothing else left`)
      t.notOk(ro?.leftovers?.length, 'the read-only pass left nothing')

      // Synapse's own access log (every request is logged): the read-only pass sent no mutating request.
      const report = JSON.parse(readFileSync(ro!.reportFile!, 'utf8')) as { runId?: string }
      t.ok(report.runId, 'the read-only report names its run')
      const lines = parseAccessLines(readFileSync(r.logFiles.homeserver!, 'utf8')).filter((l) =>
        l.userAgent.includes(`run/${report.runId}`),
      )
      t.ok(lines.length > 10, `the read-only pass is in the homeserver's access log (${lines.length} requests)`)
      t.same(
        lines.filter((l) => !READ_METHODS.has(l.method)).map((l) => `${l.method} ${l.uri}`),
        [],
        'no mutating request in the read-only pass',
      )

      // Secrets never printed: the registration shared secret, the passwords' tokens.
      const secret = (
        parseYaml(readFileSync(join(r.outDir, 'config', 'homeserver.yaml'), 'utf8')) as { registration_shared_secret: string }
      ).registration_shared_secret
      t.ok(secret && !out.join('\n').includes(secret), 'the registration shared secret is never printed')
      t.notMatch(out.join('\n'), /syt_[A-Za-z0-9_]{20,}/, 'no access token printed')

      t.same(r.leftovers, [], 'teardown reported nothing left')
      t.same(await listProjectContainers(client, r.runId), [], 'no container of the run exists')
      t.comment(
        `deploy with the real Synapse ${avail.version}: ${((Date.now() - t0) / 1000).toFixed(1)} s in all; ${r.phases.map((p) => `${p.name} ${(p.ms / 1000).toFixed(1)} s`).join(', ')}`,
      )
    },
  )
}
