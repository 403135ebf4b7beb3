// `admin-conformance mock`: start the bundled reference mock and keep it running until SIGINT/SIGTERM.
import { parseArgs } from 'node:util'
import { startMock } from '../../mock/core/server.ts'
import { mockOptions, type MockOptions } from '../../mock/core/options.ts'
import { FAULTS } from '../../mock/faults/registry.ts'
import { readStateHeader } from '../../mock/store/journal/state.ts'

const HELP = `usage: admin-conformance mock [options]

Starts the reference mock of the auth service admin API (/api/admin/v1) and the homeserver
event-report admin API (/_synapse/admin/v1) on one port, seeded deterministically.

options:
  --host H                 address to listen on (default 127.0.0.1)
  --port N                 port (default 8080; 0 = any free port)
  --seed N                 seed of the generated world (default 1)
  --sessions N             sessions to seed in all, split across compat, OAuth 2.0 and personal (default 90)
  --reports N              event reports to seed (default 40)
  --admin-token T          auth service admin token (env MOCK_ADMIN_TOKEN; default random, printed once)
  --user-token T           auth service token without urn:mas:admin (env MOCK_USER_TOKEN)
  --hs-admin-token T       homeserver admin token (env MOCK_HS_ADMIN_TOKEN)
  --hs-user-token T        homeserver non-admin token (env MOCK_HS_USER_TOKEN)
  --admin-client-id ID     static client allowed client_credentials with urn:mas:admin (env MOCK_ADMIN_CLIENT_ID)
  --admin-client-secret S  its secret (env MOCK_ADMIN_CLIENT_SECRET)
  --hs-delegate-url URL    homeserver role: introspect unknown tokens at this auth service (env MOCK_HS_DELEGATE_URL)
  --hs-delegate-client-id ID, --hs-delegate-client-secret S   client used for that introspection
  --mas-version V          version reported by /api/admin/v1/version (default v1.22.0)
  --hs-version V           version reported by server_version (default 1.157.1)
  --hs-prefix P            homeserver admin prefix (default /_synapse)
  --client-prefix P        client API prefix (default /_matrix)
  --log-file F             append request-log lines to F (default: stderr; 'none' disables)
  --log-format F           v1.20 (default) or pre-v1.20
  --max-body N             largest accepted request body in bytes (default 1048576)
  --fault NAME             inject a named server bug (repeatable); --list-faults shows them
  --state DIR              keep every acknowledged write in DIR/journal (fsync'ed before the answer) and
                           replay it on the next start; seed, sizes, versions and generated tokens are
                           taken from the journal unless given (a given one that differs is an error)
  --list-faults            print the known faults and exit
  --quiet                  print only the base URL
  --silent                 print nothing on stdout (the request log still goes to stderr or --log-file);
                           for containers, where stdout and stderr end up in one log
  -h, --help               this help
`

export async function main(argv: string[]): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
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
        'mas-version': { type: 'string' },
        'hs-version': { type: 'string' },
        'hs-prefix': { type: 'string' },
        'client-prefix': { type: 'string' },
        'log-file': { type: 'string' },
        'log-format': { type: 'string' },
        'max-body': { type: 'string' },
        fault: { type: 'string', multiple: true },
        state: { type: 'string' },
        'list-faults': { type: 'boolean' },
        quiet: { type: 'boolean' },
        silent: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }))
  } catch (e) {
    process.stderr.write(`admin-conformance mock: ${(e as Error).message}\n\n${HELP}`)
    return 2
  }
  if (values.help) {
    process.stdout.write(HELP)
    return 0
  }
  if (values['list-faults']) {
    for (const f of FAULTS) process.stdout.write(`${f.name.padEnd(36)} ${f.area.padEnd(11)} ${f.description}\n`)
    return 0
  }
  const over: Partial<MockOptions> = {}
  const int = (name: string, v: string | undefined, min: number, max: number): number | undefined => {
    if (v === undefined) return undefined
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new Error(`--${name} must be an integer from ${min} to ${max}, got '${v}'`)
    return Number(v)
  }
  try {
    const port = int('port', values.port, 0, 65535)
    if (port !== undefined) over.port = port
    const seed = int('seed', values.seed, 0, 2 ** 31 - 1)
    if (seed !== undefined) over.seed = seed
    const sessions = int('sessions', values.sessions, 0, 2_000_000)
    if (sessions !== undefined) over.sessions = sessions
    const reports = int('reports', values.reports, 0, 2_000_000)
    if (reports !== undefined) over.reports = reports
    const maxBody = int('max-body', values['max-body'], 1, 1024 ** 3)
    if (maxBody !== undefined) over.maxBody = maxBody
    if (values['log-format'] !== undefined) {
      if (values['log-format'] !== 'v1.20' && values['log-format'] !== 'pre-v1.20') throw new Error(`--log-format must be v1.20 or pre-v1.20`)
      over.logFormat = values['log-format']
    }
    for (const p of ['hs-prefix', 'client-prefix'] as const) {
      const v = values[p]
      if (v !== undefined && !/^\/[A-Za-z0-9_.-]+$/.test(v)) throw new Error(`--${p} must look like /_name, got '${v}'`)
    }
  } catch (e) {
    process.stderr.write(`admin-conformance mock: ${(e as Error).message}\n`)
    return 2
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
  set('masVersion', values['mas-version'])
  set('hsVersion', values['hs-version'])
  set('hsPrefix', values['hs-prefix'])
  set('clientPrefix', values['client-prefix'])
  if (values['log-file'] !== undefined) over.logFile = values['log-file'] === 'none' ? null : values['log-file']
  if (values.fault) over.faults = values.fault
  const generated = {
    admin: !values['admin-token'] && !process.env.MOCK_ADMIN_TOKEN,
    user: !values['user-token'] && !process.env.MOCK_USER_TOKEN,
    hsAdmin: !values['hs-admin-token'] && !process.env.MOCK_HS_ADMIN_TOKEN,
    hsUser: !values['hs-user-token'] && !process.env.MOCK_HS_USER_TOKEN,
    clientSecret: !values['admin-client-secret'] && !process.env.MOCK_ADMIN_CLIENT_SECRET,
  }
  if (values.state !== undefined) {
    if (values.state === '') {
      process.stderr.write('admin-conformance mock: --state needs a directory\n')
      return 2
    }
    over.stateDir = values.state
    try {
      adoptFromJournal(values.state, over, values, generated)
    } catch (e) {
      process.stderr.write(`admin-conformance mock: ${(e as Error).message}\n`)
      return 1
    }
  }
  const options = mockOptions(over)
  let mock
  try {
    mock = await startMock(options)
  } catch (e) {
    process.stderr.write(`admin-conformance mock: ${(e as Error).message}\n`)
    return 1
  }
  if (values.silent) {
    // nothing: a container's stdout and stderr are one stream, and that stream is the request log
  } else if (values.quiet) process.stdout.write(mock.url + '\n')
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
      `  admin client:             ${options.adminClientId} secret ${generated.clientSecret ? options.adminClientSecret : '(as given)'}  (client_credentials, scope urn:mas:admin)`,
      options.faults.length ? `  faults injected:          ${options.faults.join(', ')}` : '',
      options.stateDir ? `  state (write journal):    ${options.stateDir}  (GET /_mock/info shows what was replayed)` : '',
      '  control API:              /_mock/info, /_mock/reset, /_mock/seed, /_mock/jobs, /_mock/faults',
      'stop with Ctrl-C',
    ]
    process.stdout.write(lines.filter(Boolean).join('\n') + '\n')
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await mock.close()
  return 0
}

/**
 * With --state and an existing journal: what the command line leaves unset is taken from the journal's
 * header (seed, sizes, versions, and the tokens and secrets that would otherwise be generated anew), so
 * a restart with the same command finds the same world. What is given is kept, and the mock refuses
 * to start when it differs from the journal's.
 */
function adoptFromJournal(dir: string, over: Partial<MockOptions>, values: Record<string, unknown>, generated: Record<string, boolean>): void {
  const header = readStateHeader(dir)
  if (!header) return
  const w = header.world
  if (values.seed === undefined && typeof w.seed === 'number') over.seed = w.seed
  if (values.sessions === undefined && typeof w.sessions === 'number') over.sessions = w.sessions
  if (values.reports === undefined && typeof w.reports === 'number') over.reports = w.reports
  if (values['mas-version'] === undefined && typeof w.masVersion === 'string') over.masVersion = w.masVersion
  if (values['hs-version'] === undefined && typeof w.hsVersion === 'string') over.hsVersion = w.hsVersion
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
