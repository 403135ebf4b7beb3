// `admin-conformance deploy`: start a throwaway deployment in containers, bootstrap it, run the suites on it,
// and tear it down. The work is done by scripts/deploy (`deploy(opts)`); this file is flags and printing.
import { durationSeconds, EXIT_CODES_HELP, failWith, parseCommandLine, positiveNumber, processIo, UsageError } from '../common/index.ts'
import { AREAS, deploy, DEFAULT_IMAGES, DEFAULT_TIMEOUTS, EXIT, LABEL_RUN, type Area, type DeployOptions } from './index.ts'
import { ownLogin, WRITES, type Writes } from './options.ts'
import { DELEGATION_MODES, splitImage } from './versions.ts'

const s = (ms: number) => String(ms / 1000)

const HELP = `usage: admin-conformance deploy [options]

Starts PostgreSQL, the auth service (matrix-authentication-service) and the homeserver (Synapse) in
containers with host networking on 127.0.0.1, generates their configuration, waits for their health,
obtains an admin token (client_credentials, scope urn:mas:admin), creates fixtures through public APIs,
runs the suites with writes allowed, runs the log checks on the auth service's log, prints a report and
removes every container again, also on failure and on Ctrl-C.

images:
  --mas-image REF        auth service image (default ${DEFAULT_IMAGES.mas})
  --hs-image REF         homeserver image (default ${DEFAULT_IMAGES.homeserver})
  --pg-image REF         PostgreSQL image (default ${DEFAULT_IMAGES.postgres})
  --mas-tag T, --hs-tag T, --pg-tag T
                         replace only the tag of the image above
  --mock-image REF       run the bundled mock (built by docker/build-mock-image.sh) in the roles of the
                         auth service and the homeserver; same as --stand-in with both images set to REF
  --stand-in             the auth service and homeserver images are the bundled mock
  --skip-db              start no PostgreSQL (with --stand-in, or delegation none: SQLite)
  --delegation MODE      how the homeserver delegates auth: stable (matrix_authentication_service, Synapse
                         1.136+), msc3861 (experimental_features, 1.86 to 1.135) or none (before 1.86, which
                         predates delegation); default: from the --hs-image tag (a tag that names no
                         version is taken as the newest)

the homeserver's own login (delegation none, e.g. --hs-image admin-conformance/synapse:1.67.0 built by
docker/build-synapse-image.sh): no auth service is started (none can be wired to such a homeserver, so
--mas-image is refused); the admin and the users are registered with the registration shared secret and
log in with passwords; the reports area runs; the admin and log areas are skipped with the reason. The
homeserver uses PostgreSQL, or SQLite inside its container with --skip-db.

deployment:
  --mas-port N, --hs-port N, --pg-port N
                         host ports on 127.0.0.1 (default: free ports)
  --server-name NAME     homeserver server_name (default admin-conformance.test)
  --users N              fixture users besides the admin user (default 3)
  --reports N            fixture event reports (default 6)
  --out DIR              configs, logs and reports go here (default: a new directory in the temp dir)
  --keep                 leave the deployment running; prints its URLs and tokens (tokens are printed
                         only in this mode)

suites:
  --area LIST, --suites LIST
                         comma-separated areas to run: ${AREAS.join(', ')} (default all; 'none' runs none)
  --writes MODE          on: the suites run with --allow-writes (default); off: read-only; both: each
                         area read-only first, then with writes. What the suites cannot undo (reports on
                         releases without DELETE) is listed as data left behind; it goes with the containers

timeouts (seconds):
  --pull-timeout S       pulling one missing image (default ${s(DEFAULT_TIMEOUTS.pullMs)})
  --start-timeout S      creating and starting one container (default ${s(DEFAULT_TIMEOUTS.startMs)})
  --health-timeout S     one service becoming healthy (default ${s(DEFAULT_TIMEOUTS.healthMs)})
  --stop-timeout S       stopping one container before it is killed (default ${s(DEFAULT_TIMEOUTS.stopMs)})
  --run-timeout S        one area of the suites (default ${s(DEFAULT_TIMEOUTS.runMs)})

  -h, --help             this help

${EXIT_CODES_HELP} (here: 3 the deployment failed).
Needs a Docker engine. Every container is named ${'admin-conformance-<run>-<role>'} and labelled ${LABEL_RUN}=<run>.
`

function withTag(ref: string, tag: string): string {
  return `${splitImage(ref).repository}:${tag}`
}

function seconds(flag: string, v: string | undefined): number | undefined {
  const n = durationSeconds(`--${flag}`, v, { max: 86_400 })
  return n === undefined ? undefined : n * 1000
}

function integer(flag: string, v: string | undefined, min: number, max: number): number | undefined {
  return positiveNumber(`--${flag}`, v, { integer: true, min, max, allowZero: min === 0 })
}

const OPTIONS = {
  'mas-image': { type: 'string' },
  'hs-image': { type: 'string' },
  'pg-image': { type: 'string' },
  'mas-tag': { type: 'string' },
  'hs-tag': { type: 'string' },
  'pg-tag': { type: 'string' },
  'mock-image': { type: 'string' },
  'stand-in': { type: 'boolean' },
  'skip-db': { type: 'boolean' },
  delegation: { type: 'string', choices: [...DELEGATION_MODES] },
  writes: { type: 'string', choices: [...WRITES] },
  'mas-port': { type: 'string' },
  'hs-port': { type: 'string' },
  'pg-port': { type: 'string' },
  'server-name': { type: 'string' },
  users: { type: 'string' },
  reports: { type: 'string' },
  out: { type: 'string' },
  keep: { type: 'boolean' },
  area: { type: 'string', choices: [...AREAS, 'none'], list: true },
  suites: { type: 'string', choices: [...AREAS, 'none'], list: true },
  'pull-timeout': { type: 'string' },
  'start-timeout': { type: 'string' },
  'health-timeout': { type: 'string' },
  'stop-timeout': { type: 'string' },
  'run-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

export function parseDeployArgs(argv: string[]): DeployOptions | 'help' {
  const { values } = parseCommandLine(argv, OPTIONS)
  if (values.help) return 'help'
  const mock = values['mock-image']
  if (mock !== undefined && (values['mas-image'] !== undefined || values['hs-image'] !== undefined)) {
    throw new UsageError('--mock-image sets both --mas-image and --hs-image: give one or the others')
  }
  let masImage = mock ?? values['mas-image']
  let hsImage = mock ?? values['hs-image']
  let pgImage = values['pg-image']
  if (values['mas-tag'] !== undefined) masImage = withTag(masImage ?? DEFAULT_IMAGES.mas, values['mas-tag'])
  if (values['hs-tag'] !== undefined) hsImage = withTag(hsImage ?? DEFAULT_IMAGES.homeserver, values['hs-tag'])
  if (values['pg-tag'] !== undefined) pgImage = withTag(pgImage ?? DEFAULT_IMAGES.postgres, values['pg-tag'])
  for (const [flag, t] of [
    ['mas-tag', values['mas-tag']],
    ['hs-tag', values['hs-tag']],
    ['pg-tag', values['pg-tag']],
  ] as const) {
    if (t !== undefined && !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(t)) throw new UsageError(`--${flag}: not a valid image tag: '${t}'`)
  }
  const areaList = values.area ?? values.suites
  let areas: Area[] | undefined
  if (areaList !== undefined) {
    const parts = areaList
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
    if (parts.length === 1 && parts[0] === 'none') areas = []
    else {
      if (parts.includes('none')) throw new UsageError("--area: 'none' runs no area and goes alone")
      areas = parts as Area[]
    }
  }
  const delegation = values.delegation as DeployOptions['delegation']
  const ports: DeployOptions['ports'] = {}
  const mp = integer('mas-port', values['mas-port'], 1, 65535)
  if (mp !== undefined) ports.mas = mp
  const hp = integer('hs-port', values['hs-port'], 1, 65535)
  if (hp !== undefined) ports.homeserver = hp
  const pp = integer('pg-port', values['pg-port'], 1, 65535)
  if (pp !== undefined) ports.postgres = pp
  const fixtures: DeployOptions['fixtures'] = {}
  const users = integer('users', values.users, 1, 1000)
  if (users !== undefined) fixtures.users = users
  const reports = integer('reports', values.reports, 0, 1000)
  if (reports !== undefined) fixtures.reports = reports
  const timeouts: DeployOptions['timeouts'] = {}
  const set = (k: keyof NonNullable<DeployOptions['timeouts']>, flag: string) => {
    const v = seconds(flag, values[flag as 'pull-timeout'])
    if (v !== undefined) timeouts[k] = v
  }
  set('pullMs', 'pull-timeout')
  set('startMs', 'start-timeout')
  set('healthMs', 'health-timeout')
  set('stopMs', 'stop-timeout')
  set('runMs', 'run-timeout')
  const standIn = values['stand-in'] || mock !== undefined
  const opts: DeployOptions = {
    ...(masImage !== undefined ? { masImage } : {}),
    ...(hsImage !== undefined ? { hsImage } : {}),
    ...(pgImage !== undefined ? { pgImage } : {}),
    standIn,
    skipDb: values['skip-db'] ?? false,
    keep: values.keep ?? false,
    ...(areas !== undefined ? { areas } : {}),
    ports,
    ...(values['server-name'] !== undefined ? { serverName: values['server-name'] } : {}),
    ...(delegation !== undefined ? { delegation } : {}),
    ...(values.writes !== undefined ? { writes: values.writes as Writes } : {}),
    ...(values.out !== undefined ? { outDir: values.out } : {}),
    fixtures,
    timeouts,
  }
  if (opts.skipDb && !standIn && !ownLogin(opts)) {
    throw new UsageError(
      '--skip-db only works with --stand-in or --mock-image, or a homeserver with its own login (SQLite, delegation none): the auth service needs PostgreSQL',
    )
  }
  return opts
}

export async function main(argv: string[]): Promise<number> {
  let opts: DeployOptions | 'help'
  try {
    opts = parseDeployArgs(argv)
  } catch (e) {
    return failWith(processIo, 'deploy', e)
  }
  if (opts === 'help') {
    process.stdout.write(HELP)
    return EXIT.pass
  }
  const result = await deploy({ ...opts, handleSignals: true })
  if (result.kept) {
    // The one place tokens are printed: the user asked for a deployment to keep using.
    const out = (l: string) => process.stdout.write(l + '\n')
    out('')
    out('deployment kept running (--keep):')
    if (result.urls.mas) out(`  auth service   ${result.urls.mas}`)
    out(`  homeserver     ${result.urls.homeserver}`)
    if (result.urls.postgres) out(`  PostgreSQL     ${result.urls.postgres}`)
    if (result.access) {
      const a = result.access
      const exp = a.masAdminTokenExpiresAt ? ` (expires ${new Date(a.masAdminTokenExpiresAt).toISOString()})` : ''
      out('tokens:')
      if (a.masAdminToken) out(`  MAS_ADMIN_TOKEN=${a.masAdminToken}${exp}`)
      out(`  HS_ADMIN_TOKEN=${a.hsAdminToken}`)
      if (a.masUserToken) out(`  MAS_USER_TOKEN=${a.masUserToken}`)
      out(`  HS_USER_TOKEN=${a.hsUserToken}`)
      if (a.adminClient) {
        out(`admin client: id ${a.adminClient.id} secret ${a.adminClient.secret}`)
        out(
          `  a new admin token: curl -u '${a.adminClient.id}:${a.adminClient.secret}' -d grant_type=client_credentials -d scope=urn:mas:admin ${result.urls.mas}oauth2/token`,
        )
      }
    }
    out(`remove it with: docker rm -f $(docker ps -aq --filter label=${LABEL_RUN}=${result.runId})`)
  }
  // Library handles (the engine client's keep-alive sockets) must not hold the process open once done.
  setTimeout(() => process.exit(result.exitCode), 3_000).unref()
  return result.exitCode
}
