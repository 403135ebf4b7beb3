// The steps of a deployment, each a phase of its own on one shared run state: preflight (options, output
// directory, engine, ports, images), configure, start the services, bootstrap (admin token, fixtures),
// the suites, the logs, teardown. deploy.ts strings them together and owns the error and signal handling.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ContainerRuntimeClient } from 'testcontainers'
import type { Redactor } from '../../lib/redact.ts'
import { generateFiles, makePlan, planSecrets, type DeployPlan } from './config.ts'
import { ensureImage, listProjectContainers, removeProjectContainers, requireEngine } from './engine.ts'
import { bounded, DeployError } from './errors.ts'
import { createFixtures, DEFAULT_FIXTURES, type Fixtures } from './fixtures.ts'
import { createOwnLoginFixtures } from './fixtures-login.ts'
import { httpHealthy, postgresReady, waitUntil } from './health.ts'
import { TokenSource } from './oauth.ts'
import { checkOptions, effectiveDelegation, ownLogin, type DeployOptions, type DeployResult, type Timeouts } from './options.ts'
import { freePort, portFree } from './ports.ts'
import { seconds, type Progress } from './progress.ts'
import { checkDatabases } from './report.ts'
import { ROLE_TITLE, RunningService, type Role, type ServiceSpec } from './service.ts'
import { serviceSpecs } from './specs.ts'
import { runArea, runnerMissing, type Area, type RunnerTokens } from './suites.ts'
import { DELEGATION_SINCE, splitImage } from './versions.ts'

/** Everything the steps share. */
export interface DeployRun {
  opts: DeployOptions
  write: (line: string) => void
  redactor: Redactor
  progress: Progress
  timeouts: Timeouts
  runId: string
  outDir: string
  areas: Area[]
  images: { mas: string; homeserver: string; postgres: string }
  signal: AbortSignal
  result: DeployResult
  client?: ContainerRuntimeClient
  services: RunningService[]
  /** container starts under way, so teardown can wait for one an interruption cut short */
  pendingStarts: Set<Promise<unknown>>
  admin?: TokenSource
  fixtures?: Fixtures
  plan?: DeployPlan
  specs?: Record<Role, ServiceSpec>
}

/** Options, output directory, the engine, ports and images. */
export async function preflight(run: DeployRun): Promise<{ host: string; ports: Record<Role, number> }> {
  const { opts, outDir, timeouts, images, progress } = run
  checkOptions(opts)
  for (const dir of ['config', 'logs', 'reports']) mkdirSync(join(outDir, dir), { recursive: true, mode: 0o700 })
  run.client = await requireEngine(timeouts.engineMs)
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
  for (const ref of [...new Set([...(ownLogin(opts) ? [] : [images.mas]), images.homeserver, ...(opts.skipDb ? [] : [images.postgres])])]) {
    const how = await ensureImage(run.client, ref, {
      pullTimeoutMs: timeouts.pullMs,
      signal: run.signal,
      onPull: () => progress.detail(`pulling ${ref} (up to ${seconds(timeouts.pullMs)})`),
    })
    progress.detail(`image ${ref}: ${how === 'local' ? 'present' : 'pulled'}`)
  }
  return { ports, host }
}

/** The plan (ports, secrets, delegation mode) and the generated files, written to <out>/config (0600). */
export function configure(run: DeployRun, setup: { host: string; ports: Record<Role, number> }): void {
  const { opts, images } = run
  const plan = makePlan({
    host: setup.host,
    serverName: opts.serverName,
    ports: setup.ports,
    masTag: splitImage(images.mas).tag,
    homeserverTag: splitImage(images.homeserver).tag,
    delegation: effectiveDelegation(opts, images.homeserver),
    sqlite: ownLogin(opts) && (opts.skipDb ?? false),
  })
  run.redactor.add(...planSecrets(plan))
  const files = generateFiles(plan)
  const dir = join(run.outDir, 'config')
  for (const [name, content] of [
    ['mas.yaml', files.masConfigYaml],
    ['homeserver.yaml', files.homeserverConfigYaml],
    ['signing.key', files.homeserverSigningKey],
    ['postgres-init.sql', files.postgresInitSql],
  ] as const) {
    writeFileSync(join(dir, name), content, { mode: 0o600 })
    chmodSync(join(dir, name), 0o600)
  }
  if (plan.delegation === 'none') {
    run.progress.detail(
      `homeserver delegation: none: ${ownLoginWhy(opts, images.homeserver)}; it keeps its own login, no auth service is started; database: ${plan.sqlite ? 'SQLite' : 'PostgreSQL'}`,
    )
  } else
    run.progress.detail(
      `homeserver delegation: ${plan.delegation}; auth service matrix.kind: ${plan.homeserverKind}${opts.standIn ? '; the mock stands in for both services' : ''}`,
    )
  run.plan = plan
  run.specs = serviceSpecs(plan, files, images, opts.standIn ?? false)
  run.result.urls = {
    mas: plan.delegation === 'none' ? '' : plan.masUrl,
    homeserver: plan.homeserverUrl,
    ...(opts.skipDb ? {} : { postgres: `postgresql://${plan.host}:${plan.ports.postgres}` }),
  }
}

/** Start one role's container and wait for its probe, failing early if the container stops. */
async function start(run: DeployRun, role: Role, probe: () => Promise<true | string>, what: string): Promise<RunningService> {
  const log = join(run.outDir, 'logs', `${role}.log`)
  const svc = new RunningService(run.client!, run.specs![role], run.runId, log)
  run.services.push(svc)
  run.result.logFiles[role] = log
  const p = svc.start(run.runId, run.timeouts.startMs, run.signal)
  run.pendingStarts.add(p)
  p.finally(() => run.pendingStarts.delete(p)).catch(() => {})
  await p
  run.progress.detail(`container ${svc.name} started; waiting for ${what}`)
  await waitUntil({ what: `${svc.title} ${what}`, probe, service: svc, timeoutMs: run.timeouts.healthMs, signal: run.signal })
  return svc
}

export async function startServices(run: DeployRun): Promise<void> {
  const plan = run.plan!
  const { progress } = run
  if (!run.opts.skipDb) {
    await progress.phase('start PostgreSQL', async () => {
      const pg = await start(
        run,
        'postgres',
        () => postgresReady(plan.host, plan.ports.postgres, plan.db.user, plan.db.masDatabase),
        `PostgreSQL on ${plan.host}:${plan.ports.postgres}`,
      )
      await checkDatabases(pg, plan, (l) => progress.detail(l))
    })
  }
  if (plan.delegation !== 'none')
    await progress.phase('start auth service', () =>
      start(run, 'mas', () => httpHealthy(new URL('health', plan.masUrl).toString()), `health at ${plan.masUrl}health`),
    )
  await progress.phase('start homeserver', () =>
    start(run, 'homeserver', () => httpHealthy(new URL('health', plan.homeserverUrl).toString()), `health at ${plan.homeserverUrl}health`),
  )
}

/** The admin token (client_credentials, urn:mas:admin) and the fixtures created through public APIs. */
export async function bootstrap(run: DeployRun): Promise<void> {
  const plan = run.plan!
  const { progress, redactor, signal } = run
  const say = (l: string) => progress.detail(l)
  const options = { ...DEFAULT_FIXTURES, ...run.opts.fixtures }
  let f: Fixtures
  if (plan.delegation === 'none') {
    f = await createOwnLoginFixtures({ plan, redactor, say, signal }, options)
  } else {
    const admin = new TokenSource({
      tokenUrl: new URL('oauth2/token', plan.masUrl).toString(),
      clientId: plan.adminClient.id,
      clientSecret: plan.adminClient.secret,
      scope: 'urn:mas:admin',
      onToken: (t) => redactor.add(t),
    })
    run.admin = admin
    await admin.token(signal)
    progress.detail('admin token obtained by client_credentials (scope urn:mas:admin)')
    f = await createFixtures({ plan, admin, redactor, say, signal }, options)
  }
  for (const n of f.notes) progress.detail(`note: ${n}`)
  const how = {
    personal: 'personal session of the admin user',
    password: 'password login of the admin user registered with the shared secret',
    client_credentials: 'client_credentials with urn:synapse:admin:*',
  }
  progress.detail(`homeserver admin token: ${how[f.hsAdmin.kind]}`)
  run.fixtures = f
  run.result.fixtures = {
    users: f.users.length + 1,
    rooms: f.rooms.length,
    events: f.events.length,
    reports: f.reports,
    personalSessions: f.personalSessions,
    oauthSessions: f.oauthSessions,
    notes: f.notes,
  }
}

/** Fresh tokens for a runner: each area starts with an admin token valid for at least `minValidMs`. */
export async function tokensForRunner(run: DeployRun, minValidMs: number): Promise<RunnerTokens> {
  if (!run.fixtures) throw new Error('no tokens before the bootstrap')
  const hs = run.fixtures.hsAdmin
  return {
    // No auth service when the homeserver keeps its own login: no token of it either.
    masAdmin: run.admin ? await run.admin.token(run.signal, minValidMs) : '',
    hsAdmin: hs.kind === 'client_credentials' ? await hs.source.token(run.signal, minValidMs) : hs.token,
    masUser: run.fixtures.masUserToken,
    hsUser: run.fixtures.hsUserToken,
  }
}

/** Why an area cannot run on this deployment, or undefined when it can. */
function areaUnavailable(run: DeployRun, area: Area): string | undefined {
  if (run.plan?.delegation !== 'none' || area === 'reports') return undefined
  return `no auth service in this deployment: ${ownLoginWhy(run.opts, run.images.homeserver)}; it keeps its own login, so the ${area === 'log' ? "auth service's request log" : "auth service's admin API"} does not exist here`
}

/** Why the homeserver keeps its own login: asked for (--delegation none), or a release before delegation. */
function ownLoginWhy(opts: DeployOptions, image: string): string {
  return opts.delegation === 'none'
    ? `the homeserver ${image} was asked to keep its own login (--delegation none)`
    : `the homeserver ${image} predates delegation to the auth service (Synapse ${DELEGATION_SINCE.msc3861} brought it)`
}

/** One area of the suites as one phase per pass (read-only, with writes), or a skip with the reason. */
export async function suiteArea(run: DeployRun, area: Area): Promise<void> {
  const title = area === 'log' ? 'log checks' : `suites ${area}`
  const missing = runnerMissing() ?? areaUnavailable(run, area)
  if (missing) {
    run.progress.say(`${title}: SKIPPED: ${missing}`)
    run.result.suites.push({ area, exitCode: undefined, ms: 0, skipped: missing })
    return
  }
  const plan = run.plan!
  const writes = run.opts.writes ?? 'on'
  // The log area reads a file and sends nothing: one pass.
  const passes: boolean[] = area === 'log' || writes === 'on' ? [true] : writes === 'off' ? [false] : [false, true]
  for (const allowWrites of passes) {
    const suffix = area !== 'log' && writes !== 'on' ? (allowWrites ? ' (with writes)' : ' (read-only)') : ''
    const r = await run.progress.phase(`${title}${suffix}`, async () =>
      runArea({
        area,
        masUrl: plan.delegation === 'none' ? undefined : plan.masUrl,
        homeserverUrl: plan.homeserverUrl,
        allowWrites,
        // Each area starts with a token valid for most of its 5-minute life.
        tokens: await tokensForRunner(run, 240_000),
        reportFile: join(run.outDir, 'reports', `${area}${allowWrites || area === 'log' ? '' : '-read-only'}.json`),
        ...(area === 'log' ? { logFile: run.result.logFiles.mas } : {}),
        timeoutMs: run.timeouts.runMs,
        redactor: run.redactor,
        out: run.write,
        signal: run.signal,
        command: run.opts.runnerCommand,
      }),
    )
    run.result.suites.push(r)
  }
}

/** The areas that send traffic, then the logs, then the log checks on the collected log. */
export async function suitesAndLogs(run: DeployRun): Promise<void> {
  for (const area of run.areas.filter((a) => a !== 'log')) await suiteArea(run, area)
  await run.progress.phase('collect logs', async () => {
    // Let the log streams deliver what the services wrote last.
    await new Promise((r) => setTimeout(r, 500))
    for (const s of run.services) run.progress.detail(`${s.title}: ${run.result.logFiles[s.spec.role]}`)
  })
  if (run.areas.includes('log')) await suiteArea(run, 'log')
}

/** Remove every container of the run (also one whose start an interruption cut short) and say what is left. */
export async function teardown(run: DeployRun): Promise<void> {
  const { progress, timeouts, services, result } = run
  await progress.phase('teardown', async () => {
    if (run.pendingStarts.size)
      await bounded(Promise.allSettled([...run.pendingStarts]), timeouts.startMs, () => new Error('start still pending')).catch(() => {})
    await Promise.allSettled(services.map((s) => s.remove(timeouts.stopMs)))
    if (run.client) {
      await removeProjectContainers(run.client, run.runId).catch((e) => progress.detail(`sweep failed: ${(e as Error).message}`))
      result.leftovers = (await listProjectContainers(run.client, run.runId).catch(() => [])).map((c) => c.name)
      if (result.leftovers.length) progress.detail(`NOT removed: ${result.leftovers.join(', ')}`)
      else progress.detail(`removed ${services.length} container(s) of run ${run.runId}`)
    }
    await Promise.allSettled(services.map((s) => s.log.close()))
  })
}

/** --keep: leave it running, hand out tokens, and make result.teardown() remove it later. */
export async function keepRunning(run: DeployRun): Promise<void> {
  const { result, services } = run
  result.kept = true
  result.leftovers = services.map((s) => s.name)
  let done = false
  result.teardown = async () => {
    if (done) return
    done = true
    await teardown(run)
  }
  if (!run.fixtures || !run.plan) return
  const t = await tokensForRunner(run, 60_000).catch(() => undefined)
  if (!t) return
  result.access = {
    masAdminToken: t.masAdmin,
    masAdminTokenExpiresAt: run.admin?.expiresAt,
    hsAdminToken: t.hsAdmin,
    masUserToken: t.masUser,
    hsUserToken: t.hsUser,
    ...(run.admin ? { adminClient: { id: run.plan.adminClient.id, secret: run.plan.adminClient.secret } } : {}),
    containers: services.map((s) => s.name),
  }
}
