// `deploy(opts)`: a throwaway deployment of PostgreSQL, the auth service and the homeserver in containers
// (host networking, loopback only), bootstrapped through public APIs, tested by the suites, and torn down
// again on success, failure and interruption alike (unless kept on request).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ContainerRuntimeClient } from 'testcontainers'
import { generateFiles, makePlan, planSecrets, type DeployPlan, type GeneratedFiles } from './config.ts'
import { ensureImage, listProjectContainers, parseImage, removeProjectContainers, requireEngine } from './engine.ts'
import { bounded, DeployError, EXIT, exitCodeFor, type FailureKind } from './errors.ts'
import { createFixtures, DEFAULT_FIXTURES, type FixtureOptions, type Fixtures } from './fixtures.ts'
import { httpHealthy, postgresReady, waitUntil } from './health.ts'
import { TokenSource } from './oauth.ts'
import { freePort, portFree } from './ports.ts'
import { Progress, seconds, type PhaseRecord } from './progress.ts'
import { Redactor } from '../../lib/redact.ts'
import { randomAlnum } from './secrets.ts'
import { ROLE_TITLE, RunningService, type Role, type ServiceSpec } from './service.ts'
import { AREAS, runArea, runnerMissing, type Area, type RunnerTokens, type SuiteResult } from './suites.ts'
import { splitImage, type DelegationMode } from './versions.ts'

export const DEFAULT_IMAGES = {
  mas: 'ghcr.io/element-hq/matrix-authentication-service:latest',
  homeserver: 'docker.io/matrixdotorg/synapse:latest',
  postgres: 'docker.io/library/postgres:17',
} as const

export interface Timeouts {
  /** reaching the Docker engine */
  engineMs: number
  /** pulling one missing image */
  pullMs: number
  /** creating and starting one container */
  startMs: number
  /** one service's health check passing */
  healthMs: number
  /** stopping one container before it is killed */
  stopMs: number
  /** one area of the suites */
  runMs: number
}

export const DEFAULT_TIMEOUTS: Timeouts = { engineMs: 20_000, pullMs: 600_000, startMs: 120_000, healthMs: 180_000, stopMs: 10_000, runMs: 1_800_000 }

export interface DeployOptions {
  masImage?: string
  hsImage?: string
  pgImage?: string
  /** the images are the bundled mock standing in for the auth service and the homeserver */
  standIn?: boolean
  /** start no PostgreSQL (only sensible with standIn: the real services need it) */
  skipDb?: boolean
  /** leave everything running and print URLs and tokens */
  keep?: boolean
  /** suite areas to run; [] runs none (default: all of AREAS) */
  areas?: Area[]
  /** host ports (default: free ones) */
  ports?: Partial<{ mas: number; homeserver: number; postgres: number }>
  serverName?: string
  /** how the homeserver delegates auth (default: from the homeserver image tag) */
  delegation?: DelegationMode
  /** where configs, logs and reports go (default: a new directory under the system temp dir) */
  outDir?: string
  fixtures?: Partial<FixtureOptions>
  timeouts?: Partial<Timeouts>
  signal?: AbortSignal
  /** tear down on SIGINT/SIGTERM of this process (the CLI sets it) */
  handleSignals?: boolean
  /** where progress lines go (default: stderr) */
  write?: (line: string) => void
  /** command used instead of `node bin/admin-conformance.mjs` to run the suites (tests) */
  runnerCommand?: string[]
}

export interface KeptAccess {
  masAdminToken: string
  masAdminTokenExpiresAt?: number
  hsAdminToken: string
  masUserToken: string
  hsUserToken: string
  adminClient: { id: string; secret: string }
  containers: string[]
}

export interface DeployResult {
  exitCode: number
  ok: boolean
  runId: string
  outDir: string
  phases: PhaseRecord[]
  urls: { mas: string; homeserver: string; postgres?: string }
  suites: SuiteResult[]
  logFiles: Partial<Record<Role, string>>
  fixtures?: { users: number; rooms: number; events: number; reports: number; personalSessions: number; oauthSessions: number; notes: string[] }
  error?: { kind: FailureKind; message: string; details: string[] }
  kept: boolean
  /** tokens and client credentials: only when kept */
  access?: KeptAccess
  /** containers of this run still present after teardown (empty when teardown worked, or all of them when kept) */
  leftovers: string[]
  /** removes a kept deployment; a no-op otherwise */
  teardown: () => Promise<void>
}

function checkOptions(o: DeployOptions): void {
  for (const [flag, ref] of [
    ['--mas-image', o.masImage],
    ['--hs-image', o.hsImage],
    ['--pg-image', o.pgImage],
  ] as const) {
    if (ref !== undefined && !parseImage(ref)) throw new DeployError('usage', `${flag}: not a valid image reference: '${ref}'`)
  }
  const ports = Object.entries(o.ports ?? {}).filter(([, p]) => p !== undefined)
  for (const [role, p] of ports) {
    if (!Number.isInteger(p) || p! < 1 || p! > 65535) throw new DeployError('usage', `port for ${role} must be an integer from 1 to 65535, got ${p}`)
  }
  const values = ports.map(([, p]) => p)
  if (new Set(values).size !== values.length) throw new DeployError('usage', `ports must be distinct, got ${values.join(', ')}`)
  for (const a of o.areas ?? []) if (!(AREAS as readonly string[]).includes(a)) throw new DeployError('usage', `unknown area '${a}' (known: ${AREAS.join(', ')})`)
  for (const [k, v] of Object.entries(o.timeouts ?? {})) {
    if (v !== undefined && (!Number.isFinite(v) || v <= 0)) throw new DeployError('usage', `timeout ${k} must be a positive number of milliseconds, got ${v}`)
  }
  const f = o.fixtures ?? {}
  for (const [k, v] of Object.entries(f)) {
    if (v !== undefined && (!Number.isInteger(v) || v < (k === 'users' ? 1 : 0) || v > 1000)) throw new DeployError('usage', `fixture count ${k} must be an integer from ${k === 'users' ? 1 : 0} to 1000, got ${v}`)
  }
  if (o.skipDb && !o.standIn) {
    throw new DeployError('usage', 'skipping the database only works with the mock standing in (--stand-in): the real services need PostgreSQL')
  }
  if (o.delegation !== undefined && o.delegation !== 'stable' && o.delegation !== 'msc3861') throw new DeployError('usage', `unknown delegation mode '${o.delegation}' (stable or msc3861)`)
}

/** The container of each role: image, command, environment and the files copied in. */
export function serviceSpecs(plan: DeployPlan, files: GeneratedFiles, images: { mas: string; homeserver: string; postgres: string }, standIn: boolean): Record<Role, ServiceSpec> {
  const postgres: ServiceSpec = {
    role: 'postgres',
    image: images.postgres,
    // The official image's contract: POSTGRES_* variables, init scripts, `postgres` with server flags.
    command: ['postgres', '-p', String(plan.ports.postgres), '-c', `listen_addresses=${plan.host}`],
    env: { POSTGRES_USER: plan.db.user, POSTGRES_PASSWORD: plan.db.password },
    files: [{ content: files.postgresInitSql, target: '/docker-entrypoint-initdb.d/10-admin-conformance.sql' }],
  }
  const masFiles = [{ content: files.masConfigYaml, target: '/etc/mas/config.yaml' }]
  const hsFiles = [
    { content: files.homeserverConfigYaml, target: '/data/homeserver.yaml' },
    { content: files.homeserverSigningKey, target: '/data/signing.key' },
  ]
  if (standIn) {
    // The mock serves both roles; it gets the generated configs too (unused) and its wiring by environment.
    // No seeded event reports: as on a fresh homeserver, the only reports are the fixtures', in rooms
    // that the fixture users have joined.
    const listen = (port: number) => ['mock', '--host', plan.host, '--port', String(port), '--reports', '0', '--silent']
    return {
      postgres,
      mas: {
        role: 'mas',
        image: images.mas,
        command: listen(plan.ports.mas),
        env: { MOCK_ADMIN_CLIENT_ID: plan.adminClient.id, MOCK_ADMIN_CLIENT_SECRET: plan.adminClient.secret },
        files: masFiles,
      },
      homeserver: {
        role: 'homeserver',
        image: images.homeserver,
        command: listen(plan.ports.homeserver),
        env: {
          MOCK_HS_DELEGATE_URL: plan.masUrl.replace(/\/$/, ''),
          MOCK_HS_DELEGATE_CLIENT_ID: plan.adminClient.id,
          MOCK_HS_DELEGATE_CLIENT_SECRET: plan.adminClient.secret,
        },
        files: hsFiles,
      },
    }
  }
  return {
    postgres,
    mas: { role: 'mas', image: images.mas, command: ['server', '--config=/etc/mas/config.yaml'], files: masFiles },
    homeserver: { role: 'homeserver', image: images.homeserver, env: { SYNAPSE_CONFIG_PATH: '/data/homeserver.yaml' }, files: hsFiles },
  }
}

export async function deploy(opts: DeployOptions = {}): Promise<DeployResult> {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'))
  const redactor = new Redactor()
  const progress = new Progress(write, redactor)
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...Object.fromEntries(Object.entries(opts.timeouts ?? {}).filter(([, v]) => v !== undefined)) }
  const runId = `${Date.now().toString(36)}${randomAlnum(4).toLowerCase()}`
  const outDir = opts.outDir ?? join(tmpdir(), `admin-conformance-deploy-${runId}`)
  const areas: Area[] = opts.areas ?? [...AREAS]
  const images = {
    mas: opts.masImage ?? DEFAULT_IMAGES.mas,
    homeserver: opts.hsImage ?? DEFAULT_IMAGES.homeserver,
    postgres: opts.pgImage ?? DEFAULT_IMAGES.postgres,
  }

  // One abort signal for the caller's signal and, in the CLI, SIGINT/SIGTERM.
  const ac = new AbortController()
  const signal = ac.signal
  const onCallerAbort = () => ac.abort(opts.signal?.reason ?? 'aborted by the caller')
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true })
  if (opts.signal?.aborted) onCallerAbort()
  const onSignal = (sig: NodeJS.Signals) => {
    if (!signal.aborted) {
      progress.say(`received ${sig}: stopping and tearing down`)
      ac.abort(`received ${sig}`)
    } else progress.say(`received ${sig} again: teardown is under way and bounded; please wait`)
  }
  if (opts.handleSignals) {
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  }

  const result: DeployResult = {
    exitCode: EXIT.ok,
    ok: false,
    runId,
    outDir,
    phases: progress.phases,
    urls: { mas: '', homeserver: '' },
    suites: [],
    logFiles: {},
    kept: false,
    leftovers: [],
    teardown: async () => {},
  }
  let client: ContainerRuntimeClient | undefined
  const services: RunningService[] = []
  const pendingStarts = new Set<Promise<unknown>>()
  let admin: TokenSource | undefined
  let fixtures: Fixtures | undefined
  let deployed: DeployPlan | undefined

  const tokensForRunner = async (minValidMs: number): Promise<RunnerTokens> => {
    if (!admin || !fixtures) throw new Error('no tokens before the bootstrap')
    const hs = fixtures.hsAdmin
    return {
      masAdmin: await admin.token(signal, minValidMs),
      hsAdmin: hs.kind === 'personal' ? hs.token : await hs.source.token(signal, minValidMs),
      masUser: fixtures.masUserToken,
      hsUser: fixtures.hsUserToken,
    }
  }

  try {
    progress.say(`run ${runId}: output in ${outDir}`)
    const setup = await progress.phase('preflight', async () => {
      checkOptions(opts)
      mkdirSync(join(outDir, 'config'), { recursive: true, mode: 0o700 })
      mkdirSync(join(outDir, 'logs'), { recursive: true })
      mkdirSync(join(outDir, 'reports'), { recursive: true })
      const c = await requireEngine(timeouts.engineMs)
      client = c
      const host = '127.0.0.1'
      const chosen: number[] = []
      const port = async (role: Role, given: number | undefined): Promise<number> => {
        if (given !== undefined) {
          if (!(await portFree(given, host))) {
            throw new DeployError('port', `port ${given} for the ${ROLE_TITLE[role]} on ${host} is already in use`, [
              'choose another port (--mas-port, --hs-port, --pg-port) or stop what holds it',
            ])
          }
          chosen.push(given)
          return given
        }
        const p = await freePort(host, [...chosen, ...Object.values(opts.ports ?? {}).filter((x): x is number => x !== undefined)])
        chosen.push(p)
        return p
      }
      const ports = {
        postgres: await port('postgres', opts.ports?.postgres),
        mas: await port('mas', opts.ports?.mas),
        homeserver: await port('homeserver', opts.ports?.homeserver),
      }
      const needed = [...new Set([images.mas, images.homeserver, ...(opts.skipDb ? [] : [images.postgres])])]
      for (const ref of needed) {
        const how = await ensureImage(c, ref, {
          pullTimeoutMs: timeouts.pullMs,
          signal,
          onPull: () => progress.detail(`pulling ${ref} (up to ${seconds(timeouts.pullMs)})`),
        })
        progress.detail(`image ${ref}: ${how === 'local' ? 'present' : 'pulled'}`)
      }
      return { ports, host }
    })

    const { plan, files } = await progress.phase('configure', async () => {
      const plan = makePlan({
        host: setup.host,
        serverName: opts.serverName,
        ports: setup.ports,
        masTag: splitImage(images.mas).tag,
        homeserverTag: splitImage(images.homeserver).tag,
        delegation: opts.delegation,
      })
      redactor.add(...planSecrets(plan))
      const files = generateFiles(plan)
      const dir = join(outDir, 'config')
      for (const [name, content] of [
        ['mas.yaml', files.masConfigYaml],
        ['homeserver.yaml', files.homeserverConfigYaml],
        ['signing.key', files.homeserverSigningKey],
        ['postgres-init.sql', files.postgresInitSql],
      ] as const) {
        writeFileSync(join(dir, name), content, { mode: 0o600 })
        chmodSync(join(dir, name), 0o600)
      }
      progress.detail(`homeserver delegation: ${plan.delegation}; auth service matrix.kind: ${plan.homeserverKind}${opts.standIn ? '; the mock stands in for both services' : ''}`)
      return { plan, files }
    })
    deployed = plan
    result.urls = { mas: plan.masUrl, homeserver: plan.homeserverUrl, ...(opts.skipDb ? {} : { postgres: `postgresql://${plan.host}:${plan.ports.postgres}` }) }
    const all = serviceSpecs(plan, files, images, opts.standIn ?? false)

    const start = async (role: Role, probe: () => Promise<true | string>, what: string) => {
      const svc = new RunningService(client!, all[role], runId, join(outDir, 'logs', `${role}.log`))
      services.push(svc)
      result.logFiles[role] = join(outDir, 'logs', `${role}.log`)
      const p = svc.start(runId, timeouts.startMs, signal)
      pendingStarts.add(p)
      p.finally(() => pendingStarts.delete(p)).catch(() => {})
      await p
      progress.detail(`container ${svc.name} started; waiting for ${what}`)
      await waitUntil({ what: `${svc.title} ${what}`, probe, service: svc, timeoutMs: timeouts.healthMs, signal })
    }
    if (!opts.skipDb) {
      await progress.phase('start PostgreSQL', async () => {
        await start('postgres', () => postgresReady(plan.host, plan.ports.postgres, plan.db.user, plan.db.masDatabase), `PostgreSQL on ${plan.host}:${plan.ports.postgres}`)
        await checkDatabases(services.at(-1)!, plan, (l) => progress.detail(l))
      })
    }
    await progress.phase('start auth service', () => start('mas', () => httpHealthy(new URL('health', plan.masUrl).toString()), `health at ${plan.masUrl}health`))
    await progress.phase('start homeserver', () =>
      start('homeserver', () => httpHealthy(new URL('health', plan.homeserverUrl).toString()), `health at ${plan.homeserverUrl}health`),
    )

    fixtures = await progress.phase('bootstrap', async () => {
      admin = new TokenSource({
        tokenUrl: new URL('oauth2/token', plan.masUrl).toString(),
        clientId: plan.adminClient.id,
        clientSecret: plan.adminClient.secret,
        scope: 'urn:mas:admin',
        onToken: (t) => redactor.add(t),
      })
      await admin.token(signal)
      progress.detail('admin token obtained by client_credentials (scope urn:mas:admin)')
      const f = await createFixtures({ plan, admin, redactor, say: (l) => progress.detail(l), signal }, { ...DEFAULT_FIXTURES, ...opts.fixtures })
      for (const n of f.notes) progress.detail(`note: ${n}`)
      progress.detail(`homeserver admin token: ${f.hsAdmin.kind === 'personal' ? 'personal session of the admin user' : 'client_credentials with urn:synapse:admin:*'}`)
      return f
    })
    result.fixtures = {
      users: fixtures.users.length + 1,
      rooms: fixtures.rooms.length,
      events: fixtures.events.length,
      reports: fixtures.reports,
      personalSessions: fixtures.personalSessions,
      oauthSessions: fixtures.oauthSessions,
      notes: fixtures.notes,
    }

    const missing = runnerMissing()
    const runAreas = areas.filter((a) => a !== 'log')
    for (const area of runAreas) {
      if (missing) {
        progress.say(`suites ${area}: SKIPPED: ${missing}`)
        result.suites.push({ area, exitCode: undefined, ms: 0, skipped: missing })
        continue
      }
      const r = await progress.phase(`suites ${area}`, async () =>
        runArea({
          area,
          masUrl: plan.masUrl,
          homeserverUrl: plan.homeserverUrl,
          // Each area starts with a token valid for most of its 5-minute life.
          tokens: await tokensForRunner(240_000),
          reportFile: join(outDir, 'reports', `${area}.json`),
          timeoutMs: timeouts.runMs,
          redactor,
          out: write,
          signal,
          command: opts.runnerCommand,
        }),
      )
      result.suites.push(r)
    }

    await progress.phase('collect logs', async () => {
      // Let the log streams deliver what the services wrote last.
      await new Promise((r) => setTimeout(r, 500))
      for (const s of services) progress.detail(`${s.title}: ${result.logFiles[s.spec.role]}`)
    })

    if (areas.includes('log')) {
      if (missing) {
        progress.say(`log checks: SKIPPED: ${missing}`)
        result.suites.push({ area: 'log', exitCode: undefined, ms: 0, skipped: missing })
      } else {
        const r = await progress.phase('log checks', async () =>
          runArea({
            area: 'log',
            masUrl: plan.masUrl,
            homeserverUrl: plan.homeserverUrl,
            tokens: await tokensForRunner(240_000),
            reportFile: join(outDir, 'reports', 'log.json'),
            logFile: result.logFiles.mas,
            timeoutMs: timeouts.runMs,
            redactor,
            out: write,
            signal,
            command: opts.runnerCommand,
          }),
        )
        result.suites.push(r)
      }
    }

    const failed = result.suites.filter((s) => s.exitCode !== undefined && s.exitCode !== 0)
    result.exitCode = failed.length ? EXIT.suitesFailed : EXIT.ok
    result.ok = failed.length === 0
  } catch (e) {
    const err =
      e instanceof DeployError
        ? e
        : new DeployError(signal.aborted ? 'interrupted' : 'start', `unexpected failure: ${(e as Error)?.message ?? String(e)}`)
    const kind = signal.aborted && err.kind !== 'interrupted' ? 'interrupted' : err.kind
    result.error = { kind, message: redactor.apply(err.message), details: err.details.map((d) => redactor.apply(d)) }
    result.exitCode = exitCodeFor(kind)
    result.ok = false
    progress.say(`ERROR: ${result.error.message}`)
    for (const d of result.error.details) write(redactor.apply(`[deploy]   ${d}`))
  }

  const teardown = async () => {
    await progress.phase('teardown', async () => {
      // A start cut short by an interruption may still be creating its container: let it finish first.
      if (pendingStarts.size) await bounded(Promise.allSettled([...pendingStarts]), timeouts.startMs, () => new Error('start still pending')).catch(() => {})
      await Promise.allSettled(services.map((s) => s.remove(timeouts.stopMs)))
      if (client) {
        await removeProjectContainers(client, runId).catch((e) => progress.detail(`sweep failed: ${(e as Error).message}`))
        result.leftovers = (await listProjectContainers(client, runId).catch(() => [])).map((c) => c.name)
        if (result.leftovers.length) progress.detail(`NOT removed: ${result.leftovers.join(', ')}`)
        else progress.detail(`removed ${services.length} container(s) of run ${runId}`)
      }
      await Promise.allSettled(services.map((s) => s.log.close()))
    })
  }

  const keep = opts.keep && result.error?.kind !== 'interrupted' && services.length > 0
  if (keep) {
    result.kept = true
    result.leftovers = services.map((s) => s.name)
    let done = false
    result.teardown = async () => {
      if (done) return
      done = true
      await teardown()
    }
    if (admin && fixtures && deployed) {
      const t = await tokensForRunner(60_000).catch(() => undefined)
      if (t) {
        result.access = {
          masAdminToken: t.masAdmin,
          masAdminTokenExpiresAt: admin.expiresAt,
          hsAdminToken: t.hsAdmin,
          masUserToken: t.masUser,
          hsUserToken: t.hsUser,
          adminClient: { id: deployed.adminClient.id, secret: deployed.adminClient.secret },
          containers: services.map((s) => s.name),
        }
      }
    }
  } else {
    try {
      await teardown()
    } catch (e) {
      progress.say(`teardown: ${(e as Error).message}`)
    }
  }
  summary(result, progress)
  if (opts.handleSignals) {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  opts.signal?.removeEventListener('abort', onCallerAbort)
  return result
}

/** The closing report: phases with timings, fixtures, suites, logs and the outcome. No secrets. */
function summary(r: DeployResult, progress: Progress): void {
  progress.say('summary:')
  for (const p of r.phases) progress.detail(`${p.ok ? 'ok    ' : 'FAILED'} ${p.name.padEnd(20)} ${seconds(p.ms).padStart(8)}${p.error ? `  ${p.error}` : ''}`)
  if (r.fixtures) {
    const f = r.fixtures
    progress.detail(`fixtures: ${f.users} users, ${f.personalSessions} personal sessions, ${f.oauthSessions} OAuth 2.0 sessions, ${f.rooms} rooms, ${f.events} events, ${f.reports} reports`)
  }
  for (const s of r.suites) {
    const counts = s.counts ? ` (${s.counts.passed} passed, ${s.counts.failed} failed${s.counts.skipped !== undefined ? `, ${s.counts.skipped} skipped` : ''})` : ''
    progress.detail(s.skipped ? `suites ${s.area}: skipped: ${s.skipped}` : `suites ${s.area}: exit ${s.exitCode}${counts}${s.reportFile ? ` report ${s.reportFile}` : ''}`)
  }
  for (const [role, file] of Object.entries(r.logFiles)) progress.detail(`${ROLE_TITLE[role as Role]} log: ${file}`)
  const outcome = r.error ? `FAILED (${r.error.kind}): ${r.error.message}` : r.ok ? 'OK' : 'suites FAILED'
  progress.say(`result: ${outcome}; exit code ${r.exitCode}${r.kept ? '; deployment kept running' : ''}`)
}

/**
 * The handshake probe passes before authentication; this logs in over TCP with the services' credentials
 * and checks that both databases exist, the homeserver's with C collation. Uses the image's psql.
 */
async function checkDatabases(pg: RunningService, plan: DeployPlan, detail: (l: string) => void): Promise<void> {
  for (const db of [plan.db.masDatabase, plan.db.homeserverDatabase]) {
    const r = await pg.exec(
      ['psql', '-h', plan.host, '-p', String(plan.ports.postgres), '-U', plan.db.user, '-d', db, '-tAc', 'SELECT datcollate FROM pg_database WHERE datname = current_database()'],
      { PGPASSWORD: plan.db.password },
    )
    if (r === undefined || r.exitCode === 126 || r.exitCode === 127) {
      detail('no psql in the PostgreSQL image: databases not checked')
      return
    }
    if (r.exitCode !== 0) throw new DeployError('health', `PostgreSQL: database ${db} is not usable: ${r.output.trim().split('\n').at(-1)}`, pg.tailLines())
    if (db === plan.db.homeserverDatabase && r.output.trim() !== 'C') {
      throw new DeployError('health', `PostgreSQL: database ${db} has collation '${r.output.trim()}', the homeserver needs C`)
    }
  }
  detail(`databases ${plan.db.masDatabase} and ${plan.db.homeserverDatabase} accept the services' login`)
}
