// `admin-conformance mock`: start the bundled reference mock and keep it running until SIGINT/SIGTERM.
import { readFileSync } from 'node:fs'
import { startMock } from '../../mock/site/server.ts'
import { mockOptions, type MockOptions } from '../../mock/core/options.ts'
import { FAULTS } from '../../mock/faults/registry.ts'
import { corsOrigin } from '../../mock/core/options.ts'
import { readStateHeader } from '../../mock/store/journal/state.ts'
import { allowedHostName } from '../../mock/core/host.ts'
import { MOCK_CONTROL_HEADER, normalisePrefix } from '../../lib/target.ts'

/** A ULID as the auth service's configuration reads one: 26 characters of Crockford's base 32, at most 7ZZ…. */
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i
import {
  EXIT,
  didYouMean,
  failWith,
  prefixed,
  listLines,
  parseCommandLine,
  positiveNumber,
  processIo,
  UsageError,
  type Io,
  type OptionSpecs,
  type ParsedValues,
} from '../common/index.ts'
import { publicUrlOption } from '../../mock/core/public-url.ts'

const HELP = `usage: admin-conformance mock [options]

Starts the reference mock of the auth service admin API (/api/admin/v1) and the homeserver
event- and user-report admin API (/_synapse/admin/v1) on one port, seeded deterministically.

options:
  --host H                 address to listen on (default 127.0.0.1)
  --port N                 port (default 8080; 0 = any free port)
  --seed N                 seed of the generated world (default 1)
  --sessions N             sessions to seed in all, split across compat, OAuth 2.0 and personal (default 90)
  --reports N              event reports to seed (default 40); user reports: a third as many, at least 12
  --admin-token T          auth service admin token (env MOCK_ADMIN_TOKEN; default random, printed once)
  --user-token T           auth service token without urn:mas:admin (env MOCK_USER_TOKEN)
  --hs-admin-token T       homeserver admin token (env MOCK_HS_ADMIN_TOKEN)
  --hs-user-token T        homeserver non-admin token (env MOCK_HS_USER_TOKEN)
  --admin-client-id ID     static client allowed client_credentials with urn:mas:admin (env MOCK_ADMIN_CLIENT_ID)
  --admin-client-secret S  its secret (env MOCK_ADMIN_CLIENT_SECRET)
  --hs-delegate-url URL    homeserver role: introspect unknown tokens at this auth service (env MOCK_HS_DELEGATE_URL)
  --hs-delegate-client-id ID, --hs-delegate-client-secret S   client used for that introspection
  --homeserver-url URL     the auth service's link to its homeserver (matrix.endpoint): users and
                           devices are provisioned there through /_synapse/mas/ as the real service
                           does (env MOCK_HOMESERVER_URL); needs a secret:
  --homeserver-secret S    the shared secret (matrix.secret; env MOCK_HOMESERVER_SECRET): the homeserver
                           introspects at /oauth2/introspect with it, the mock calls /_synapse/mas/ with
                           it; never printed
  --homeserver-secret-file F   the secret, read from F (matrix.secret_file; surrounding whitespace
                           dropped, as Synapse reads its secret_path)
  --auto-approve USER      sign-in without pages: GET /authorize signs the seeded user USER in (a new
                           browser session) and consents at once, redirecting to the client with the
                           code; scopes the policy refuses still get the refusal page. Default: the
                           login and consent pages (seeded users' password: mock-password)
  --mas-version V          the auth service release the mock behaves as: routes, filters, log format,
                           known deviations, and /api/admin/v1/version (default v1.22.0)
  --hs-version V           the homeserver release the mock behaves as: routes, error texts, headers,
                           filters, and server_version (default 1.160.0)
  --hs-prefix P            homeserver admin prefix (default /_synapse)
  --client-prefix P        client API prefix (default /_matrix)
  --log-file F             append request-log lines to F (default: stderr; 'none' disables)
  --log-format F           v1.20 (default) or pre-v1.20
  --max-body N             largest accepted request body in bytes (default: the real servers' limits,
                           2 MiB on the auth service, 50 MiB on the homeserver)
  --fault NAME             inject a named server bug (repeatable); --list-faults shows them
  --state DIR              keep every acknowledged write in DIR/journal (fsync'ed before the answer) and
                           replay it on the next start; seed, sizes, versions and generated tokens are
                           taken from the journal unless given (a given one that differs is an error)
  --cors-origin ORIGIN     allow credentials (cookies) from this origin on the auth-service paths, and
                           let it use the control API (default: any origin without credentials on the
                           auth service, none on the control API; env MOCK_CORS_ORIGIN)
  --allowed-host NAME      answer requests whose Host header is NAME (any port) or NAME:PORT, besides
                           localhost, 127.0.0.1 and [::1] at the mock's port (repeatable); any other
                           Host gets 421 Misdirected Request (a web page rebinding its name to the
                           mock cannot reach it)
  --public-url URL         the URL clients reach the mock at (behind a TLS proxy: https://…): every URL it
                           advertises (discovery, well-known, OpenAPI servers, token issuers) follows it,
                           and requests with its Host are answered
  --trust-forwarded        advertise the scheme and host of a proxy's X-Forwarded-Proto and
                           X-Forwarded-Host (only behind a proxy that sets them: anyone can send them)
  --fixed-tokens           the seeded homeserver users' tokens (other than the two above) follow the seed
                           alone, the same at every start, for reproducible demos and tests; by default
                           a secret of each start is mixed in, so that the public seed does not give
                           them away (they are never printed)
  --no-deviations          follow the interface document where the claimed release is known to deviate
                           from it (lib/data/deviations.json); by default the mock reproduces them
  --no-policy-data         start with no policy data, as a fresh auth service does: GET
                           /api/admin/v1/policy-data/latest answers 404 until one is set (kept in
                           the --state journal like the seed)
  --list-faults            print the known faults and exit
  --quiet                  print only the base URL
  --silent                 print nothing on stdout (the request log still goes to stderr or --log-file);
                           for containers, where stdout and stderr end up in one log
  -h, --help               this help
`

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  seed: { type: 'string' },
  sessions: { type: 'string' },
  reports: { type: 'string' },
  'admin-token': { type: 'string' },
  'user-token': { type: 'string' },
  'hs-admin-token': { type: 'string' },
  'hs-user-token': { type: 'string' },
  'admin-client-id': { type: 'string' },
  'admin-client-secret': { type: 'string' },
  'hs-delegate-url': { type: 'string' },
  'hs-delegate-client-id': { type: 'string' },
  'hs-delegate-client-secret': { type: 'string' },
  'homeserver-url': { type: 'string' },
  'homeserver-secret': { type: 'string' },
  'homeserver-secret-file': { type: 'string' },
  'auto-approve': { type: 'string' },
  'mas-version': { type: 'string' },
  'hs-version': { type: 'string' },
  'hs-prefix': { type: 'string' },
  'client-prefix': { type: 'string' },
  'log-file': { type: 'string' },
  'log-format': { type: 'string', choices: ['v1.20', 'pre-v1.20'] },
  'max-body': { type: 'string' },
  fault: { type: 'string', multiple: true },
  state: { type: 'string' },
  'no-deviations': { type: 'boolean' },
  'fixed-tokens': { type: 'boolean' },
  'no-policy-data': { type: 'boolean' },
  'cors-origin': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'public-url': { type: 'string' },
  'trust-forwarded': { type: 'boolean' },
  'list-faults': { type: 'boolean' },
  quiet: { type: 'boolean' },
  silent: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs

type Values = ParsedValues<typeof OPTIONS>

/** --homeserver-url and its secret (given, in a file, or in the environment); throws UsageError. */
export function homeserverLink(
  values: Values,
  env: NodeJS.ProcessEnv = process.env,
): Pick<MockOptions, 'homeserverUrl' | 'homeserverSecret'> {
  const url = values['homeserver-url'] ?? (env.MOCK_HOMESERVER_URL || undefined)
  const file = values['homeserver-secret-file']
  if (values['homeserver-secret'] !== undefined && file !== undefined)
    throw new UsageError('--homeserver-secret and --homeserver-secret-file cannot both be given (as matrix.secret and matrix.secret_file)')
  let secret = values['homeserver-secret'] ?? (file === undefined ? env.MOCK_HOMESERVER_SECRET || undefined : undefined)
  if (file !== undefined) {
    try {
      // Synapse strips what it reads from its secret file: the same file must give both the same secret
      secret = readFileSync(file, 'utf8').trim()
    } catch (e) {
      throw new UsageError(
        `--homeserver-secret-file: cannot read ${JSON.stringify(file)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      )
    }
  }
  if (secret === '') throw new UsageError('the homeserver secret is empty')
  if (url !== undefined) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new UsageError(`--homeserver-url must be an http(s) URL, got ${JSON.stringify(url)}`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new UsageError(`--homeserver-url must be an http(s) URL, got ${JSON.stringify(url)}`)
    if (secret === undefined)
      throw new UsageError(
        '--homeserver-url needs --homeserver-secret or --homeserver-secret-file (the shared secret Synapse is configured with)',
      )
  }
  const out: Pick<MockOptions, 'homeserverUrl' | 'homeserverSecret'> = {}
  if (url !== undefined) out.homeserverUrl = url
  if (secret !== undefined) out.homeserverSecret = secret
  return out
}

/** Unknown fault names are a usage error: the closest name, then every known name one per line. */
export function checkFaults(names: readonly string[]): void {
  const known: readonly string[] = FAULTS.map((f) => f.name)
  for (const n of names) {
    if (known.includes(n)) continue
    throw new UsageError(
      `--fault: unknown fault '${n}'${didYouMean(n, known)}\nknown faults (${known.length}; --list-faults describes them):\n${listLines(known)}`,
    )
  }
}

/** The mock options given on the command line; throws UsageError. */
export function parseMockArgs(values: Values): Partial<MockOptions> {
  const over: Partial<MockOptions> = {}
  const int = (name: string, v: string | undefined, max: number, allowZero = true) =>
    positiveNumber(`--${name}`, v, { integer: true, max, allowZero })
  const port = int('port', values.port, 65535)
  if (port !== undefined) over.port = port
  const seed = int('seed', values.seed, 2 ** 31 - 1)
  if (seed !== undefined) over.seed = seed
  const sessions = int('sessions', values.sessions, 2_000_000)
  if (sessions !== undefined) over.sessions = sessions
  const reports = int('reports', values.reports, 2_000_000)
  if (reports !== undefined) over.reports = reports
  const maxBody = int('max-body', values['max-body'], 1024 ** 3, false)
  if (maxBody !== undefined) over.maxBody = maxBody
  if (values['log-format'] !== undefined) over.logFormat = values['log-format'] as MockOptions['logFormat']
  try {
    if (values['hs-prefix'] !== undefined) over.hsPrefix = normalisePrefix(values['hs-prefix'], '--hs-prefix')
    if (values['client-prefix'] !== undefined) over.clientPrefix = normalisePrefix(values['client-prefix'], '--client-prefix')
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
  if (values.fault) checkFaults(values.fault)
  if (values['allowed-host']) {
    try {
      over.allowedHosts = values['allowed-host'].map(allowedHostName)
    } catch (e) {
      throw new UsageError((e as Error).message)
    }
  }
  if (values['public-url'] !== undefined) {
    try {
      over.publicUrl = publicUrlOption(values['public-url'])
    } catch (e) {
      throw new UsageError((e as Error).message)
    }
  }
  if (values['trust-forwarded']) over.trustForwarded = true
  return over
}

export async function main(argv: string[]): Promise<number> {
  return run(argv, processIo)
}

export async function run(argv: string[], io: Io, stopped?: Promise<void>): Promise<number> {
  let values: Values
  let over: Partial<MockOptions>
  try {
    values = parseCommandLine(argv, OPTIONS).values
    if (values.help) {
      io.out(HELP)
      return EXIT.pass
    }
    if (values['list-faults']) {
      for (const f of FAULTS) io.out(`${f.name.padEnd(36)} ${f.area.padEnd(11)} ${f.description}\n`)
      return EXIT.pass
    }
    over = parseMockArgs(values)
  } catch (e) {
    return failWith(io, 'mock', e)
  }
  const set = <K extends keyof MockOptions>(k: K, v: MockOptions[K] | undefined) => {
    if (v !== undefined) over[k] = v
  }
  set('host', values.host)
  set('adminToken', values['admin-token'])
  set('userToken', values['user-token'])
  set('hsAdminToken', values['hs-admin-token'])
  set('hsUserToken', values['hs-user-token'])
  set('adminClientId', values['admin-client-id'])
  set('adminClientSecret', values['admin-client-secret'])
  set('hsDelegateUrl', values['hs-delegate-url'])
  set('hsDelegateClientId', values['hs-delegate-client-id'])
  set('hsDelegateClientSecret', values['hs-delegate-client-secret'])
  try {
    Object.assign(over, homeserverLink(values))
  } catch (e) {
    return failWith(io, 'mock', e)
  }
  if (values['auto-approve'] !== undefined) {
    if (values['auto-approve'] === '') return failWith(io, 'mock', new UsageError('--auto-approve needs a username'))
    over.autoApprove = values['auto-approve']
  }
  set('masVersion', values['mas-version'])
  set('hsVersion', values['hs-version'])
  if (values['log-file'] !== undefined) over.logFile = values['log-file'] === 'none' ? null : values['log-file']
  if (values.fault) over.faults = values.fault
  const generated = {
    admin: !values['admin-token'] && !process.env.MOCK_ADMIN_TOKEN,
    user: !values['user-token'] && !process.env.MOCK_USER_TOKEN,
    hsAdmin: !values['hs-admin-token'] && !process.env.MOCK_HS_ADMIN_TOKEN,
    hsUser: !values['hs-user-token'] && !process.env.MOCK_HS_USER_TOKEN,
    clientSecret: !values['admin-client-secret'] && !process.env.MOCK_ADMIN_CLIENT_SECRET,
  }
  if (values['no-deviations']) over.deviations = false
  if (values['fixed-tokens']) over.tokenSecret = undefined
  if (values['no-policy-data']) over.policyData = false
  if (values['cors-origin'] !== undefined) {
    try {
      over.corsOrigin = corsOrigin(values['cors-origin'])
    } catch (e) {
      return failWith(io, 'mock', new UsageError(`--cors-origin: ${(e as Error).message}`))
    }
  }
  if (values.state !== undefined) {
    if (values.state === '') return failWith(io, 'mock', new UsageError('--state needs a directory'))
    over.stateDir = values.state
    try {
      adoptFromJournal(values.state, over, values, generated)
    } catch (e) {
      io.err(prefixed('mock', (e as Error).message) + '\n')
      return EXIT.failed
    }
  }
  const options = mockOptions(over)
  // The auth service's configuration reads client ids as ULIDs (clients[].client_id); a mock accepting
  // another shape would hand out ids that real tools and the upstream schema then refuse.
  for (const [flag, env, id] of [
    ['--admin-client-id', 'MOCK_ADMIN_CLIENT_ID', options.adminClientId],
    ['--hs-delegate-client-id', 'MOCK_HS_DELEGATE_CLIENT_ID', options.hsDelegateClientId],
  ] as const) {
    if (id !== undefined && !ULID.test(id)) {
      return failWith(
        io,
        'mock',
        new UsageError(
          `${flag} (or ${env}) must be a ULID, 26 characters of Crockford's base 32 such as 01J00000000000000000ADM1N0, as the auth service's clients[].client_id; got ${JSON.stringify(id)}`,
        ),
      )
    }
  }
  let mock
  try {
    mock = await startMock(options)
  } catch (e) {
    // A taken or foreign address is the caller's choice of --host/--port: a usage error, not a failed check.
    const code = (e as { code?: string }).code
    io.err(prefixed('mock', (e as Error).message) + '\n')
    return code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES' ? EXIT.usage : EXIT.failed
  }
  const approver = options.autoApprove
  if (approver !== undefined && !mock.world().mas.findUserByUsername(approver)) {
    const names = mock
      .world()
      .mas.users.all()
      .map((u) => u.username)
    await mock.close()
    return failWith(io, 'mock', new UsageError(`--auto-approve: no user '${approver}' in the seeded world${didYouMean(approver, names)}`))
  }
  if (values.silent) {
    // nothing: a container's stdout and stderr are one stream, and that stream is the request log
  } else if (values.quiet) io.out(mock.url + '\n')
  else {
    // Generated tokens are printed once here, so a developer can use them; given ones are not echoed.
    const lines = [
      `mock listening on ${mock.url} (seed ${options.seed}, ${options.sessions} sessions, ${options.reports} reports)`,
      `  auth service admin API:   ${mock.url}/api/admin/v1   (spec: ${mock.url}/api/spec.json)`,
      `  homeserver admin API:     ${mock.url}${options.hsPrefix}/admin/v1`,
      `  admin token:              ${generated.admin ? options.adminToken : '(as given)'}`,
      `  user token (no admin):    ${generated.user ? options.userToken : '(as given)'}`,
      `  homeserver admin token:   ${generated.hsAdmin ? options.hsAdminToken : '(as given)'}`,
      `  homeserver user token:    ${generated.hsUser ? options.hsUserToken : '(as given)'}`,
      `  OpenID Connect:           ${mock.url}/.well-known/openid-configuration${options.autoApprove ? `  (auto-approve as ${options.autoApprove})` : ''}`,
      options.homeserverUrl
        ? `  homeserver link:          ${options.homeserverUrl}  (provisioning at /_synapse/mas/; introspection with the shared secret)`
        : '',
      `  admin client:             ${options.adminClientId} secret ${generated.clientSecret ? options.adminClientSecret : '(as given)'}  (client_credentials, scope urn:mas:admin)`,
      options.faults.length ? `  faults injected:          ${options.faults.join(', ')}` : '',
      options.stateDir ? `  state (write journal):    ${options.stateDir}  (GET /_mock/info shows what was replayed)` : '',
      `  control API:              /_mock/info, /_mock/reset, /_mock/seed, /_mock/jobs, /_mock/faults  (header '${MOCK_CONTROL_HEADER}: 1' or a JSON body)`,
      'stop with Ctrl-C',
    ]
    io.out(lines.filter(Boolean).join('\n') + '\n')
  }
  await (stopped ??
    new Promise<void>((resolve) => {
      const stop = () => resolve()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    }))
  await mock.close()
  // Stopping is how a mock ends (Ctrl-C by hand, SIGTERM in a container): a normal end, not an interruption.
  return EXIT.pass
}

/**
 * With --state and an existing journal: what the command line leaves unset is taken from the journal's
 * header (seed, sizes, versions, and the tokens and secrets that would otherwise be generated anew), so
 * a restart with the same command finds the same world. What is given is kept, and the mock refuses
 * to start when it differs from the journal's.
 */
function adoptFromJournal(
  dir: string,
  over: Partial<MockOptions>,
  values: Record<string, unknown>,
  generated: Record<string, boolean>,
): void {
  const header = readStateHeader(dir)
  if (!header) return
  const w = header.world
  if (values.seed === undefined && typeof w.seed === 'number') over.seed = w.seed
  if (values.sessions === undefined && typeof w.sessions === 'number') over.sessions = w.sessions
  if (values.reports === undefined && typeof w.reports === 'number') over.reports = w.reports
  if (values['mas-version'] === undefined && typeof w.masVersion === 'string') over.masVersion = w.masVersion
  if (values['hs-version'] === undefined && typeof w.hsVersion === 'string') over.hsVersion = w.hsVersion
  if (values['no-policy-data'] === undefined && w.policyData === false) over.policyData = false
  const secrets = header.secrets
  const adopt = (flag: boolean, key: 'adminToken' | 'userToken' | 'hsAdminToken' | 'hsUserToken' | 'adminClientSecret') => {
    if (flag && secrets[key] !== undefined) over[key] = secrets[key]
  }
  adopt(generated.admin!, 'adminToken')
  adopt(generated.user!, 'userToken')
  adopt(generated.hsAdmin!, 'hsAdminToken')
  adopt(generated.hsUser!, 'hsUserToken')
  adopt(generated.clientSecret!, 'adminClientSecret')
}
