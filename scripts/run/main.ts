// `admin-conformance run`: resolve the target (flags, environment, or the bundled mock), preflight it,
// run the selected suite files with tap in child processes, and report.
//
// Exit codes: 0 every selected check passed (skips are fine); 1 a check failed (or a suite file crashed
// or timed out); 2 usage error (bad flag, bad URL, unknown area, nothing selected); 3 preflight failed
// (a target did not answer, or rejected its token).
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync, existsSync, statSync, createWriteStream } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { Parser, type Result } from 'tap-parser'
import { HttpClient, HttpError, redact } from '../../lib/http.ts'
import { formatVersion, parseServerVersionString } from '../../lib/versions.ts'
import {
  DEFAULT_CLIENT_PREFIX, DEFAULT_HS_PREFIX, DEFAULT_TIMEOUTS, TOKEN_ENV, TargetError, knownTokens, normaliseBaseUrl, normalisePrefix, targetEnv, userAgentFor,
  type Target,
} from '../../lib/target.ts'
import pkg from '../../package.json' with { type: 'json' }

export const EXIT = { ok: 0, failed: 1, usage: 2, preflight: 3 } as const

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The one table of areas: the `--area` name, the suite folder, and what the area needs from the target.
 * Other areas' authors add their suites to these folders; nothing else has to change.
 */
export const AREAS: Readonly<Record<string, { dir: string; title: string; needs: 'mas' | 'hs' | 'any' | 'log' }>> = {
  admin: { dir: 'suites/admin', title: 'auth service admin API (area A)', needs: 'mas' },
  reports: { dir: 'suites/homeserver', title: 'homeserver event reports (area B)', needs: 'hs' },
  log: { dir: 'suites/requestlog', title: 'request log (area C)', needs: 'log' },
  upgrade: { dir: 'suites/upgrade', title: 'pre-upgrade checks', needs: 'any' },
}

const REPORTERS = ['tap', 'junit', 'json', 'jsonstream', 'markdown'] as const
type Reporter = (typeof REPORTERS)[number]

const HELP = `usage: admin-conformance run [options]

Runs the conformance suites against an auth service (MAS) and/or a homeserver (Synapse).
Without a target it starts the bundled mock on a free loopback port, runs everything against it
(writes allowed) and stops it.

target (flags win over the environment):
  --mas-url URL           auth service base URL                     (env MAS_URL)
  --mas-token T           admin token (scope urn:mas:admin)          (env MAS_ADMIN_TOKEN)
  --mas-user-token T      token without the admin scope, for auth    (env MAS_USER_TOKEN)
  --hs-url URL            homeserver base URL                        (env HS_URL)
  --hs-token T            server admin's access token               (env HS_ADMIN_TOKEN)
  --hs-user-token T       non-admin access token, for auth checks    (env HS_USER_TOKEN)
  --hs-prefix P           homeserver admin prefix (default ${DEFAULT_HS_PREFIX})
  --client-prefix P       client API prefix (default ${DEFAULT_CLIENT_PREFIX})
  --allow-writes          also run checks that finish, revoke, regenerate, create, set policy
                          data or delete reports (read-only by default; always on for the mock)
  --log-file F            the target's request log, for the log area ('-' for stdin)
  --mock-fault NAME       bundled mock only: inject a named server bug (repeatable)
  --fault-matrix          bundled mock only: run the suites against a clean mock and one mock per
                          fault of the selected areas (default admin,reports); passes when the clean
                          mock passes every check and every fault makes at least one named check fail

selection and output:
  --area A[,B]            areas: ${Object.keys(AREAS).join(', ')} (default: every area the target has)
  --grep PATTERN          run only the checks whose name matches (a regular expression; /re/i allowed)
  --reporter R            report format: ${REPORTERS.join(', ')} (default: none, or from --output's extension)
  --output FILE           write the report to FILE (default: standard output)
  --jobs N                suite files run in parallel (default: CPU count)
  --timeout S             time limit per suite file in seconds (default 120)
  --request-timeout S     time limit per HTTP request in seconds (default ${DEFAULT_TIMEOUTS.requestMs / 1000})
  -h, --help              this help

Tokens are passed to the suites through the environment only and are redacted from all output.
Prefer the environment variables over the token flags (flags are visible in the process list).

exit codes: 0 all selected checks passed (skips are fine), 1 a check failed,
            2 usage error, 3 preflight failed (a target does not answer or rejects its token)
`

export interface RunIO {
  stdout: { write(s: string): unknown }
  stderr: { write(s: string): unknown }
  env: NodeJS.ProcessEnv
}

export interface CheckResult {
  name: string
  ok: boolean
  /** the skip reason, when skipped */
  skip?: string
  todo?: string
  durationMs?: number
  /** failed assertions: the message and its diagnostics */
  failures: { name: string; diag?: unknown }[]
}

export interface SuiteResult {
  file: string
  area: string
  ok: boolean
  durationMs: number
  pass: number
  fail: number
  skip: number
  checks: CheckResult[]
  /** why the file failed as a whole (crash, timeout) */
  error?: string
}

export interface RunReport {
  tool: string
  version: string
  runId: string
  startedAt: string
  durationMs: number
  exitCode: number
  ok: boolean
  target: {
    mock: boolean
    writes: boolean
    mas?: { url: string; version?: string }
    hs?: { url: string; prefix: string; clientPrefix: string; version?: string }
  }
  areas: string[]
  grep?: string
  counts: { checks: number; pass: number; fail: number; skip: number }
  suites: SuiteResult[]
}

export interface RunResult {
  exitCode: number
  report?: RunReport
  matrix?: MatrixReport
}

class UsageError extends Error {}

interface Options {
  masUrl?: string
  masToken?: string
  masUserToken?: string
  hsUrl?: string
  hsToken?: string
  hsUserToken?: string
  hsPrefix: string
  clientPrefix: string
  allowWrites: boolean
  logFile?: string
  mockFaults: string[]
  faultMatrix: boolean
  areas?: string[]
  grep?: string
  reporter?: Reporter
  output?: string
  jobs: number
  timeoutS: number
  requestTimeoutMs: number
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        'mas-url': { type: 'string' },
        'mas-token': { type: 'string' },
        'mas-user-token': { type: 'string' },
        'hs-url': { type: 'string' },
        'hs-token': { type: 'string' },
        'hs-user-token': { type: 'string' },
        'hs-prefix': { type: 'string' },
        'client-prefix': { type: 'string' },
        'allow-writes': { type: 'boolean' },
        'log-file': { type: 'string' },
        'mock-fault': { type: 'string', multiple: true },
        'fault-matrix': { type: 'boolean' },
        area: { type: 'string', multiple: true },
        grep: { type: 'string', multiple: true },
        reporter: { type: 'string' },
        output: { type: 'string' },
        jobs: { type: 'string' },
        timeout: { type: 'string' },
        'request-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (e) {
    // parseArgs echoes the offending argument, which may be a token: redact it.
    throw new UsageError(redact((e as Error).message, argv.filter((a) => !a.startsWith('-'))))
  }
  if (values.help) return 'help'
  const pick = (flag: string | undefined, name: string) => (flag !== undefined ? flag : env[name] !== undefined && env[name] !== '' ? env[name] : undefined)
  const num = (flag: string, v: string | undefined, min: number, max: number, dflt: number): number => {
    if (v === undefined) return dflt
    if (!/^\d+(\.\d+)?$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${flag} must be a number from ${min} to ${max}, got '${v}'`)
    return Number(v)
  }
  const o: Options = {
    masUrl: pick(values['mas-url'], 'MAS_URL'),
    masToken: pick(values['mas-token'], 'MAS_ADMIN_TOKEN'),
    masUserToken: pick(values['mas-user-token'], 'MAS_USER_TOKEN'),
    hsUrl: pick(values['hs-url'], 'HS_URL'),
    hsToken: pick(values['hs-token'], 'HS_ADMIN_TOKEN'),
    hsUserToken: pick(values['hs-user-token'], 'HS_USER_TOKEN'),
    hsPrefix: DEFAULT_HS_PREFIX,
    clientPrefix: DEFAULT_CLIENT_PREFIX,
    allowWrites: values['allow-writes'] === true,
    logFile: values['log-file'],
    mockFaults: values['mock-fault'] ?? [],
    faultMatrix: values['fault-matrix'] === true,
    jobs: num('jobs', values.jobs, 1, 64, Math.max(1, availableParallelism())),
    timeoutS: num('timeout', values.timeout, 1, 3600, 120),
    requestTimeoutMs: num('request-timeout', values['request-timeout'], 0.1, 600, DEFAULT_TIMEOUTS.requestMs / 1000) * 1000,
  }
  try {
    if (o.masUrl !== undefined) o.masUrl = normaliseBaseUrl(o.masUrl, values['mas-url'] !== undefined ? '--mas-url' : 'MAS_URL')
    if (o.hsUrl !== undefined) o.hsUrl = normaliseBaseUrl(o.hsUrl, values['hs-url'] !== undefined ? '--hs-url' : 'HS_URL')
    if (values['hs-prefix'] !== undefined) o.hsPrefix = normalisePrefix(values['hs-prefix'], '--hs-prefix')
    if (values['client-prefix'] !== undefined) o.clientPrefix = normalisePrefix(values['client-prefix'], '--client-prefix')
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message)
    throw e
  }
  const hasTarget = o.masUrl !== undefined || o.hsUrl !== undefined
  if (!o.masUrl && (values['mas-token'] !== undefined || values['mas-user-token'] !== undefined)) {
    throw new UsageError('an auth service token was given without --mas-url (or MAS_URL)')
  }
  if (!o.hsUrl && (values['hs-token'] !== undefined || values['hs-user-token'] !== undefined)) {
    throw new UsageError('a homeserver token was given without --hs-url (or HS_URL)')
  }
  if (hasTarget && o.mockFaults.length > 0) throw new UsageError('--mock-fault applies to the bundled mock only; leave out --mas-url/--hs-url')
  if (hasTarget && o.faultMatrix) throw new UsageError('--fault-matrix applies to the bundled mock only; leave out --mas-url/--hs-url')
  if (o.faultMatrix && o.mockFaults.length > 0) throw new UsageError('--fault-matrix already runs every fault; leave out --mock-fault')
  if (o.faultMatrix && values.timeout === undefined) o.timeoutS = 900
  if (values.area) {
    const areas = values.area.flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean)
    for (const a of areas) if (!Object.hasOwn(AREAS, a)) throw new UsageError(`unknown area '${a}'; areas: ${Object.keys(AREAS).join(', ')}`)
    if (areas.length === 0) throw new UsageError('--area needs at least one area')
    o.areas = [...new Set(areas)]
  }
  if (values.grep) {
    const parts = values.grep.map((g) => {
      const m = /^\/(.*)\/([a-z]*)$/s.exec(g)
      try {
        new RegExp(m ? m[1]! : g, m ? m[2] : '')
      } catch (e) {
        throw new UsageError(`--grep '${g}' is not a regular expression: ${(e as Error).message}`)
      }
      return g
    })
    // Several patterns select the checks that match any of them.
    o.grep = parts.length === 1 ? parts[0] : parts.map((p) => `(?:${/^\/(.*)\/[a-z]*$/s.exec(p)?.[1] ?? p})`).join('|')
  }
  if (values.reporter !== undefined) {
    if (!(REPORTERS as readonly string[]).includes(values.reporter)) throw new UsageError(`unknown reporter '${values.reporter}'; reporters: ${REPORTERS.join(', ')}`)
    o.reporter = values.reporter as Reporter
  }
  if (values.output !== undefined) {
    if (values.output === '') throw new UsageError('--output needs a file name')
    o.output = path.resolve(values.output)
    o.reporter ??= o.output.endsWith('.xml') ? 'junit' : o.output.endsWith('.json') ? 'json' : 'tap'
    const dir = path.dirname(o.output)
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--output: the folder ${dir} does not exist`)
  }
  return o
}

// ---------------------------------------------------------------------------------------------------
// Preflight

interface Preflight {
  ok: boolean
  problems: string[]
  warnings: string[]
  masVersion?: string
  hsVersion?: string
}

function firstTitle(json: unknown): string {
  const t = (json as { errors?: { title?: unknown }[] } | undefined)?.errors?.[0]?.title
  return typeof t === 'string' ? t : ''
}

function hsErr(json: unknown): string {
  const b = json as { errcode?: unknown; error?: unknown } | undefined
  return [b?.errcode, b?.error].filter((x) => typeof x === 'string').join(': ')
}

/** Does each target answer, and do its tokens work? Bounded by 30 s in all. */
async function preflight(target: Target): Promise<Preflight> {
  const client = new HttpClient({
    allowWrites: false,
    connectTimeoutMs: Math.min(target.timeouts.connectMs, 10_000),
    requestTimeoutMs: Math.min(target.timeouts.requestMs, 12_000),
    userAgent: target.userAgent,
    secrets: knownTokens(target),
  })
  const out: Preflight = { ok: true, problems: [], warnings: [] }
  const fail = (who: string, url: string, text: string) => {
    out.ok = false
    out.problems.push(client.redact(`${who} at ${url}: ${text}`))
  }
  const masCheck = async () => {
    const m = target.mas
    if (!m) return
    const who = 'auth service'
    try {
      const res = await client.request(m.url, '/api/admin/v1/version', { token: m.adminToken })
      const v = (res.json as { version?: unknown } | undefined)?.version
      if (!m.adminToken) {
        if (res.status === 400 || res.status === 401 || res.status === 200) out.warnings.push('no auth service admin token: the checks that need it are skipped')
        else fail(who, m.url, `GET /api/admin/v1/version answered ${res.status}; is the admin API (adminapi resource) served here?`)
        return
      }
      if (res.status === 200 && typeof v === 'string') out.masVersion = v
      else if (res.status === 200) fail(who, m.url, 'GET /api/admin/v1/version answered 200 without a version string')
      else if (res.status === 401) fail(who, m.url, `the admin token was rejected (401${firstTitle(res.json) ? ': ' + firstTitle(res.json) : ''})`)
      else if (res.status === 400) fail(who, m.url, `the admin token was not accepted (400${firstTitle(res.json) ? ': ' + firstTitle(res.json) : ''})`)
      else if (res.status === 404) fail(who, m.url, 'no admin API at /api/admin/v1 (404); is the adminapi resource enabled on this listener?')
      else fail(who, m.url, `GET /api/admin/v1/version answered ${res.status}`)
      if (m.userToken && out.ok) {
        const u = await client.request(m.url, '/api/admin/v1/version', { token: m.userToken })
        if (u.status === 200) out.warnings.push('the auth service user token has the admin scope; the non-admin auth checks will fail')
      }
    } catch (e) {
      fail(who, m.url, e instanceof HttpError ? e.message.replace(/^GET \S+: /, '') : String(e))
    }
  }
  const hsCheck = async () => {
    const h = target.hs
    if (!h) return
    const who = 'homeserver'
    try {
      const sv = await client.request(h.url, `${h.prefix}/admin/v1/server_version`)
      const v = (sv.json as { server_version?: unknown } | undefined)?.server_version
      if (sv.status === 200 && typeof v === 'string') out.hsVersion = v
      else if (sv.status === 404) return fail(who, h.url, `no admin API under ${h.prefix}/admin/v1 (server_version answered 404); check --hs-prefix`)
      else return fail(who, h.url, `GET ${h.prefix}/admin/v1/server_version answered ${sv.status}${hsErr(sv.json) ? ' (' + hsErr(sv.json) + ')' : ''}`)
      if (!h.adminToken) {
        out.warnings.push('no homeserver admin token: the checks that need it are skipped')
        return
      }
      const r = await client.request(h.url, `${h.prefix}/admin/v1/event_reports`, { token: h.adminToken, query: { limit: 1 } })
      if (r.status === 200) return
      if (r.status === 401) fail(who, h.url, `the admin token was rejected (401${hsErr(r.json) ? ' ' + hsErr(r.json) : ''})`)
      else if (r.status === 403) fail(who, h.url, `the token is not a server admin's (403${hsErr(r.json) ? ' ' + hsErr(r.json) : ''})`)
      else fail(who, h.url, `GET ${h.prefix}/admin/v1/event_reports answered ${r.status}${hsErr(r.json) ? ' (' + hsErr(r.json) + ')' : ''}`)
    } catch (e) {
      fail(who, h.url, e instanceof HttpError ? e.message.replace(/^GET \S+: /, '') : String(e))
    }
  }
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), 30_000)
    timer.unref()
  })
  const done = await Promise.race([Promise.all([masCheck(), hsCheck()]).then(() => 'done' as const), deadline])
  clearTimeout(timer)
  if (done === 'late') {
    out.ok = false
    const who = [target.mas && `auth service at ${target.mas.url}`, target.hs && `homeserver at ${target.hs.url}`].filter(Boolean).join(' and ')
    out.problems.push(`${who}: no complete answer within 30 s`)
    await client.destroy()
  } else await client.close()
  return out
}

// ---------------------------------------------------------------------------------------------------
// Files

function suiteFiles(area: string): string[] {
  const dir = path.join(ROOT, AREAS[area]!.dir)
  if (!existsSync(dir)) return []
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (/\.suite\.(ts|mts|js|mjs)$/.test(name)) out.push(path.relative(ROOT, full).split(path.sep).join('/'))
    }
  }
  walk(dir)
  return out
}

function areaOf(file: string): string {
  for (const [name, a] of Object.entries(AREAS)) if (file.startsWith(a.dir + '/')) return name
  return 'other'
}

// ---------------------------------------------------------------------------------------------------
// Running tap

interface TapRun {
  raw: string
  files: TapNode[]
  exitCode: number | null
  signal: NodeJS.Signals | null
}

/**
 * A throwaway tap project: its own .taprc (tsx as a loader, no coverage) and links to the suites and
 * node_modules, so tap's own state (.tap/) never lands in the package and concurrent runs do not meet.
 */
function tapProject(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'admin-conformance-run-'))
  const require = createRequire(import.meta.url)
  const tapPkg = require.resolve('tap/package.json')
  const nodeModules = path.resolve(path.dirname(tapPkg), '..')
  const tsx = pathToFileURL(require.resolve('tsx')).href
  writeFileSync(path.join(dir, '.taprc'), `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${tsx}"\n`)
  symlinkSync(nodeModules, path.join(dir, 'node_modules'), 'dir')
  symlinkSync(path.join(ROOT, 'suites'), path.join(dir, 'suites'), 'dir')
  mkdirSync(path.join(dir, 'tmp'))
  return dir
}

function tapBin(): string {
  const require = createRequire(import.meta.url)
  const tapPkg = require.resolve('tap/package.json')
  const bin = (require(tapPkg) as { bin: Record<string, string> }).bin.tap!
  return path.join(path.dirname(tapPkg), bin)
}

/** Why a suite file failed as a whole, from the runner's diagnostics: timed out, killed, or crashed. */
function fileError(diag: unknown): string {
  const d = (diag ?? {}) as { signal?: unknown; exitCode?: unknown; expired?: unknown; message?: unknown }
  if (d.expired !== undefined || /timeout/i.test(String(d.message ?? ''))) return `timed out (${String(d.expired ?? d.message)})`
  if (typeof d.signal === 'string' && d.signal) return `killed by ${d.signal}`
  if (typeof d.exitCode === 'number' && d.exitCode !== 0) return `the suite process exited with code ${d.exitCode} (a crash: see its output above)`
  return 'the suite file failed without a failing check (see its output above)'
}

/** A node of the parsed TAP tree: a subtest (with children) or a plain assertion (a leaf). */
interface TapNode {
  name: string
  result?: Result
  children: TapNode[]
}

/** Attach a parser's subtests and assertions to `node`, recursively; `onChild` sees each finished child. */
function attach(parser: Parser, node: TapNode, onChild?: (n: TapNode) => void): void {
  const open: TapNode[] = []
  parser.on('child', (cp: Parser) => {
    const n: TapNode = { name: cp.name, children: [] }
    open.push(n)
    attach(cp, n)
  })
  parser.on('assert', (a: Result) => {
    const i = open.findIndex((n) => n.name === a.name)
    const n = i === -1 ? { name: a.name, children: [] } : open.splice(i, 1)[0]!
    n.result = a
    node.children.push(n)
    onChild?.(n)
  })
}

/** The failed leaf assertions under a node (its own diagnostics when it has no children). */
function failuresOf(node: TapNode): { name: string; diag?: unknown }[] {
  const out: { name: string; diag?: unknown }[] = []
  const walk = (n: TapNode) => {
    const r = n.result
    if (!r || r.ok || r.todo || r.skip) return
    if (n.children.length === 0) out.push(r.diag ? { name: n.name, diag: r.diag } : { name: n.name })
    else n.children.forEach(walk)
  }
  node.children.forEach(walk)
  if (out.length === 0 && node.result && !node.result.ok) out.push(node.result.diag ? { name: node.name, diag: node.result.diag } : { name: node.name })
  return out
}

/** A check left out by --grep (tap reports it as skipped with the reason "filter: ..."). */
function filteredOut(n: TapNode): boolean {
  const skip = n.result?.skip
  return typeof skip === 'string' && skip.startsWith('filter: ')
}

function toCheck(n: TapNode): CheckResult {
  const a = n.result!
  const c: CheckResult = { name: n.name, ok: a.ok, failures: a.ok ? [] : failuresOf(n) }
  if (a.skip) c.skip = typeof a.skip === 'string' ? a.skip : 'skipped'
  if (a.todo) c.todo = typeof a.todo === 'string' ? a.todo : 'todo'
  if (typeof a.time === 'number') c.durationMs = a.time
  return c
}

function toSuite(file: TapNode, checks: CheckResult[]): SuiteResult {
  const a = file.result!
  const s: SuiteResult = {
    file: file.name,
    area: areaOf(file.name),
    ok: a.ok,
    durationMs: typeof a.time === 'number' ? a.time : 0,
    pass: checks.filter((c) => c.ok && !c.skip && !c.todo).length,
    fail: checks.filter((c) => !c.ok).length,
    skip: checks.filter((c) => c.skip || c.todo).length,
    checks,
  }
  if (!a.ok && s.fail === 0) s.error = fileError(a.diag)
  return s
}

function runTap(opts: {
  project: string
  files: string[]
  env: NodeJS.ProcessEnv
  jobs: number
  timeoutS: number
  grep?: string
  matrix: boolean
  secrets: string[]
  /** each suite file as it finishes: its TAP tree */
  onFile: (n: TapNode) => void
  onChild: (c: ChildProcess) => void
  stderr: RunIO['stderr']
}): Promise<TapRun> {
  const args = [tapBin(), '-R', 'tap', '--disable-coverage', '--no-color', '--jobs', String(opts.jobs), '--timeout', String(opts.timeoutS)]
  // In the fault matrix the checks sit one level down, under their `target: X` group.
  if (opts.grep !== undefined) args.push(...(opts.matrix ? ['--grep', '.'] : []), '--grep', opts.grep)
  args.push(...opts.files)
  const child = spawn(process.execPath, args, { cwd: opts.project, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] })
  opts.onChild(child)
  let raw = ''
  // Level 0: the runner (one assertion per file); then the files' checks and their assertions.
  const parser = new Parser()
  const root: TapNode = { name: '', children: [] }
  attach(parser, root, opts.onFile)

  // Everything the child says is redacted before it is parsed, kept or shown.
  let buf = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk
    const nl = buf.lastIndexOf('\n')
    if (nl === -1) return
    const lines = redact(buf.slice(0, nl + 1), opts.secrets)
    buf = buf.slice(nl + 1)
    raw += lines
    parser.write(lines)
  })
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => opts.stderr.write(redact(chunk, opts.secrets)))
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      if (buf) {
        const rest = redact(buf, opts.secrets)
        raw += rest
        parser.write(rest)
      }
      parser.end()
      resolve({ raw, files: root.children, exitCode: code, signal })
    })
  })
}

// ---------------------------------------------------------------------------------------------------
// Reports

function xml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
}

function junit(r: RunReport): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>']
  lines.push(`<testsuites name="admin-conformance" tests="${r.counts.checks}" failures="${r.counts.fail}" skipped="${r.counts.skip}" time="${(r.durationMs / 1000).toFixed(3)}">`)
  for (const s of r.suites) {
    if (r.grep && s.checks.length === 0 && !s.error) continue
    lines.push(`  <testsuite name="${xml(s.file)}" tests="${s.checks.length}" failures="${s.fail + (s.error ? 1 : 0)}" skipped="${s.skip}" time="${(s.durationMs / 1000).toFixed(3)}">`)
    for (const c of s.checks) {
      const t = c.durationMs !== undefined ? ` time="${(c.durationMs / 1000).toFixed(3)}"` : ''
      const open = `    <testcase classname="${xml(s.file)}" name="${xml(c.name)}"${t}`
      if (c.skip || c.todo) lines.push(`${open}><skipped message="${xml(c.skip ?? c.todo ?? '')}"/></testcase>`)
      else if (!c.ok) {
        const text = c.failures.map((f) => `${f.name}${f.diag ? '\n' + JSON.stringify(f.diag, null, 2) : ''}`).join('\n\n')
        lines.push(`${open}><failure message="${xml(c.failures[0]?.name ?? 'failed')}">${xml(text)}</failure></testcase>`)
      } else lines.push(`${open}/>`)
    }
    if (s.error) lines.push(`    <testcase classname="${xml(s.file)}" name="(suite file)"><failure message="the suite file failed">${xml(s.error)}</failure></testcase>`)
    lines.push('  </testsuite>')
  }
  lines.push('</testsuites>')
  return lines.join('\n') + '\n'
}

async function tapStreamReport(kind: 'jsonstream' | 'markdown', raw: string): Promise<string> {
  const mod = (await import('@tapjs/reporter')) as unknown as Record<string, new () => NodeJS.ReadWriteStream>
  const Ctor = kind === 'jsonstream' ? mod.JSONStream! : mod.MarkdownStream!
  const stream = new Ctor()
  let out = ''
  stream.on('data', (d: Buffer | string) => (out += d.toString()))
  await new Promise<void>((resolve) => {
    stream.on('end', () => resolve())
    stream.end(raw)
  })
  return out
}

// ---------------------------------------------------------------------------------------------------
// Terminal output

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

function suiteLine(s: SuiteResult): string {
  const mark = s.ok ? 'ok  ' : 'FAIL'
  const parts = [`${s.pass} passed`]
  if (s.fail) parts.push(`${s.fail} failed`)
  if (s.skip) parts.push(`${s.skip} skipped`)
  let line = `  ${mark} ${s.file.padEnd(44)} ${parts.join(', ').padEnd(34)} ${seconds(s.durationMs).padStart(7)}\n`
  for (const c of s.checks.filter((c) => !c.ok)) {
    line += `         ✗ ${c.name}\n`
    for (const f of c.failures.slice(0, 3)) line += `             - ${f.name}\n`
    if (c.failures.length > 3) line += `             (+${c.failures.length - 3} more)\n`
  }
  if (s.error) line += `         ✗ the file failed as a whole: ${String(s.error)}\n`
  return line
}

// ---------------------------------------------------------------------------------------------------
// Main

/** The version as reported, and what the version-dependent checks make of it. */
function describeVersion(raw: string | undefined): string {
  if (raw === undefined) return '(unknown: version-dependent checks run and say so)'
  const p = parseServerVersionString(raw)
  return p.ok ? `${JSON.stringify(raw)} → ${formatVersion(p.version)}` : `${JSON.stringify(raw)} (not a release: ${p.reason}; version-dependent checks run and say so)`
}

function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`
}

/** Which run areas a mock fault's area can be caught in. */
const FAULT_AREAS: Readonly<Record<string, string[]>> = {
  admin: ['admin'],
  homeserver: ['reports'],
  auth: ['admin', 'reports'],
  log: ['log'],
  upgrade: ['upgrade'],
}

export interface MatrixFault {
  name: string
  area: string
  description: string
  caught: boolean
  /** the named checks that failed against this fault's mock */
  failedChecks: { file: string; check: string }[]
}

export interface MatrixReport {
  kind: 'fault-matrix'
  tool: string
  version: string
  runId: string
  startedAt: string
  durationMs: number
  exitCode: number
  ok: boolean
  areas: string[]
  clean: { ok: boolean; counts: RunReport['counts']; failedChecks: { file: string; check: string; failures: CheckResult['failures'] }[] }
  faults: MatrixFault[]
  suites: { file: string; ok: boolean; durationMs: number; error?: string }[]
}

interface MockHandle {
  label: string
  fault?: { name: string; area: string; description: string }
  url: string
  logFile: string
  close(): Promise<void>
}

const TARGET_GROUP = /^target: (.*)$/

export async function run(argv: string[], io: RunIO): Promise<RunResult> {
  const started = Date.now()
  let o: Options | 'help'
  try {
    o = parseOptions(argv, io.env)
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`admin-conformance run: ${e.message}\n\nrun 'admin-conformance run --help' for the options\n`)
      return { exitCode: EXIT.usage }
    }
    throw e
  }
  if (o === 'help') {
    io.stdout.write(HELP)
    return { exitCode: EXIT.ok }
  }
  const opts = o
  // Human output goes to stderr when the report itself goes to stdout.
  const human = opts.reporter && !opts.output ? io.stderr : io.stdout
  const runId = newRunId()
  const project = tapProject()
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(project, { recursive: true, force: true })]
  let child: ChildProcess | undefined
  const onSignal = () => {
    child?.kill('SIGTERM')
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    const target: Target = {
      allowWrites: opts.allowWrites,
      isMock: false,
      runId,
      userAgent: userAgentFor(pkg.version, runId),
      timeouts: { connectMs: DEFAULT_TIMEOUTS.connectMs, requestMs: opts.requestTimeoutMs },
    }
    if (opts.logFile === '-') {
      // The suites cannot share this process's stdin: keep it in a file for them.
      const file = path.join(project, 'tmp', 'stdin.log')
      await pipeline(process.stdin, createWriteStream(file))
      target.logFile = file
      target.logStdin = true
    } else if (opts.logFile) {
      target.logFile = path.resolve(opts.logFile)
      if (!existsSync(target.logFile)) {
        io.stderr.write(`admin-conformance run: --log-file: ${target.logFile} does not exist\n`)
        return { exitCode: EXIT.usage }
      }
    }
    const mocks: MockHandle[] = []
    const logOnly = !!target.logFile && opts.areas !== undefined && opts.areas.every((a) => a === 'log')
    if (logOnly && !opts.masUrl && !opts.hsUrl) {
      // A log file alone: check that log as it is; starting the bundled mock would check the wrong log.
    } else if (opts.masUrl || opts.hsUrl) {
      if (opts.masUrl) target.mas = { url: opts.masUrl, adminToken: opts.masToken, userToken: opts.masUserToken }
      if (opts.hsUrl) target.hs = { url: opts.hsUrl, adminToken: opts.hsToken, userToken: opts.hsUserToken, prefix: opts.hsPrefix, clientPrefix: opts.clientPrefix }
    } else {
      // No target: the bundled mock, in this process, on a free loopback port, writes on. In the fault
      // matrix, one more mock per fault, all with the same tokens.
      const [{ startMock }, { mockOptions, randomToken }, { FAULTS }] = await Promise.all([import('../../mock/core/server.ts'), import('../../mock/core/options.ts'), import('../../mock/faults/registry.ts')])
      const tokens = { adminToken: randomToken('mat_'), userToken: randomToken('mat_'), hsAdminToken: randomToken('syt_'), hsUserToken: randomToken('syt_') }
      const wanted: (MockHandle['fault'] | undefined)[] = [undefined]
      if (opts.faultMatrix) {
        const selected = opts.areas ?? ['admin', 'reports']
        for (const f of FAULTS) if ((FAULT_AREAS[f.area] ?? []).some((a) => selected.includes(a))) wanted.push({ name: f.name, area: f.area, description: f.description })
      }
      try {
        for (const fault of wanted) {
          const label = fault ? fault.name : 'clean'
          const logFile = path.join(project, 'tmp', `mock-${label}.log`)
          const faults = fault ? [fault.name] : opts.mockFaults
          // A fault's mock keeps a request log only when the log area can look at it (formatting costs).
          const keepLog = !fault || (opts.areas ?? ['admin', 'reports']).includes('log')
          const m = await startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile: keepLog ? logFile : null, faults, hsPrefix: opts.hsPrefix, clientPrefix: opts.clientPrefix, ...tokens }, {}))
          mocks.push({ label, fault, url: m.url, logFile, close: () => m.close() })
          cleanups.unshift(() => m.close())
          if (!fault) {
            const mo = m.options
            target.mas = { url: m.url, adminToken: mo.adminToken, userToken: mo.userToken }
            target.hs = { url: m.url, adminToken: mo.hsAdminToken, userToken: mo.hsUserToken, prefix: mo.hsPrefix, clientPrefix: mo.clientPrefix }
            target.mockControlUrl = m.url
            if (!target.logFile) target.logFile = logFile
          }
        }
      } catch (e) {
        io.stderr.write(`admin-conformance run: the bundled mock did not start: ${(e as Error).message}\n`)
        return { exitCode: /unknown fault/.test((e as Error).message) ? EXIT.usage : EXIT.failed }
      }
      target.allowWrites = true
      target.isMock = true
    }
    const secrets = knownTokens(target)

    // Areas and files.
    const defaultAreas = Object.keys(AREAS).filter((a) => {
      const need = AREAS[a]!.needs
      return need === 'mas' ? !!target.mas : need === 'hs' ? !!target.hs : need === 'log' ? !!target.logFile : !!(target.mas || target.hs)
    })
    // The fault matrix defaults to the areas whose suites must catch the mock's faults (issue 4).
    const areas = opts.areas ?? (opts.faultMatrix ? ['admin', 'reports'] : defaultAreas)
    const files: string[] = []
    const notes: string[] = []
    for (const a of areas) {
      const f = suiteFiles(a)
      if (f.length === 0) notes.push(`area ${a}: no suite files in ${AREAS[a]!.dir}/ yet`)
      files.push(...f)
    }
    if (files.length === 0) {
      io.stderr.write(`admin-conformance run: nothing to run: ${notes.join('; ') || 'no area selected'}\n`)
      return { exitCode: EXIT.usage }
    }

    // Preflight, then the header.
    const pf = await preflight(target)
    const header: string[] = [`admin-conformance ${pkg.version}  run ${runId}`]
    if (target.mas) header.push(`  auth service  ${target.mas.url}  version ${describeVersion(pf.masVersion)}`)
    if (target.hs) header.push(`  homeserver    ${target.hs.url}  server_version ${describeVersion(pf.hsVersion)}  (admin prefix ${target.hs.prefix}, client prefix ${target.hs.clientPrefix})`)
    header.push(`  writes        ${target.allowWrites ? 'on' : 'off (read-only; --allow-writes to enable)'}${target.isMock ? ' (bundled mock)' : ''}`)
    header.push(`  areas         ${areas.join(', ')}${opts.grep ? `  (checks matching ${opts.grep})` : ''}`)
    if (opts.faultMatrix) header.push(`  fault matrix  a clean mock and ${mocks.length - 1} mocks with one fault each`)
    else if (opts.mockFaults.length) header.push(`  mock faults   ${opts.mockFaults.join(', ')}`)
    if (target.logFile && !opts.faultMatrix) header.push(`  request log   ${target.logFile}`)
    for (const n of notes) header.push(`  note: ${n}`)
    for (const w of pf.warnings) header.push(`  warning: ${w}`)
    human.write(redact(header.join('\n'), secrets) + '\n')
    if (!pf.ok) {
      io.stderr.write(redact(`preflight failed:\n${pf.problems.map((p) => `  ${p}`).join('\n')}\n`, secrets))
      return { exitCode: EXIT.preflight }
    }
    target.versions = { mas: pf.masVersion, hs: pf.hsVersion }

    human.write(`\nrunning ${files.length} suite file(s), ${opts.jobs} at a time\n`)
    const env: NodeJS.ProcessEnv = { ...io.env }
    // The suites get the target through AC_* variables only; the run's own token variables are not passed on.
    for (const k of ['MAS_ADMIN_TOKEN', 'MAS_USER_TOKEN', 'HS_ADMIN_TOKEN', 'HS_USER_TOKEN', 'AC_TARGETS', ...Object.values(TOKEN_ENV)]) delete env[k]
    Object.assign(env, targetEnv(target), { FORCE_COLOR: '0' })
    for (const k of Object.keys(env)) if (k === 'TAP' || k.startsWith('TAP_') || k.startsWith('_TAPJS') || k === 'NODE_TEST_CONTEXT') delete env[k]
    if (opts.faultMatrix) {
      // Every mock is a target; a fault's mock serves only the suite folders of the areas it can be caught in.
      env.AC_TARGETS = JSON.stringify(
        mocks.map((m) => {
          const t: Target = { ...target, mas: { url: m.url }, hs: { ...target.hs!, url: m.url }, mockControlUrl: m.url, logFile: m.logFile }
          const plain = JSON.parse(targetEnv(t).AC_TARGET!) as unknown
          const dirs = m.fault ? (FAULT_AREAS[m.fault.area] ?? []).filter((a) => areas.includes(a)).map((a) => AREAS[a]!.dir) : []
          return { label: m.label, dirs, target: plain }
        }),
      )
    }

    const suites: SuiteResult[] = []
    const perTarget = new Map<string, { file: string; checks: CheckResult[] }[]>()
    const tap = await runTap({
      project,
      files,
      env,
      jobs: opts.jobs,
      timeoutS: opts.timeoutS,
      grep: opts.grep,
      matrix: opts.faultMatrix,
      secrets,
      onFile: (n) => {
        // Checks directly under the file belong to the (clean) default target; `target: X` groups to X.
        const own: CheckResult[] = []
        for (const c of n.children) {
          const m = TARGET_GROUP.exec(c.name)
          if (opts.faultMatrix && m && c.result) {
            const list = perTarget.get(m[1]!) ?? []
            list.push({ file: n.name, checks: c.children.filter((x) => x.result && !filteredOut(x)).map(toCheck) })
            perTarget.set(m[1]!, list)
          } else if (c.result && !filteredOut(c)) own.push(toCheck(c))
        }
        if (opts.faultMatrix && own.length) {
          const list = perTarget.get('clean') ?? []
          list.push({ file: n.name, checks: own })
          perTarget.set('clean', list)
        }
        const s = toSuite(n, opts.faultMatrix ? (perTarget.get('clean') ?? []).filter((x) => x.file === n.name).flatMap((x) => x.checks) : own)
        // In the matrix a suite process fails because the faults' checks fail; that is no crash.
        if (opts.faultMatrix && s.error && n.children.some((c) => TARGET_GROUP.test(c.name) && c.result && !c.result.ok)) delete s.error
        suites.push(s)
        if (opts.grep && s.checks.length === 0 && !s.error) return
        human.write(opts.faultMatrix ? `  ${s.ok || !s.error ? 'done' : 'FAIL'} ${s.file.padEnd(44)} ${seconds(s.durationMs).padStart(7)}${s.error ? '  ' + s.error : ''}\n` : suiteLine(s))
      },
      onChild: (c) => (child = c),
      stderr: io.stderr,
    })

    // Files that produced no result line at all (the runner itself died).
    for (const f of files) {
      if (!suites.some((s) => s.file === f)) suites.push({ file: f, area: areaOf(f), ok: false, durationMs: 0, pass: 0, fail: 0, skip: 0, checks: [], error: `no result (tap exited with ${tap.signal ?? tap.exitCode})` })
    }
    suites.sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file))
    const countOf = (checks: CheckResult[]) => ({
      checks: checks.length,
      pass: checks.filter((c) => c.ok && !c.skip && !c.todo).length,
      fail: checks.filter((c) => !c.ok).length,
      skip: checks.filter((c) => c.skip || c.todo).length,
    })
    const crashed = suites.filter((s) => s.error)

    if (opts.faultMatrix) {
      const cleanChecks = (perTarget.get('clean') ?? []).flatMap((x) => x.checks.map((c) => ({ file: x.file, c })))
      const counts = countOf(cleanChecks.map((x) => x.c))
      const faults: MatrixFault[] = mocks
        .filter((m) => m.fault)
        .map((m) => {
          const failedChecks = (perTarget.get(m.label) ?? []).flatMap((x) => x.checks.filter((c) => !c.ok).map((c) => ({ file: x.file, check: c.name })))
          return { ...m.fault!, caught: failedChecks.length > 0, failedChecks }
        })
      const cleanOk = counts.fail === 0 && counts.checks > 0 && crashed.length === 0
      const ok = cleanOk && faults.every((f) => f.caught)
      const exitCode = ok ? EXIT.ok : EXIT.failed
      const matrix: MatrixReport = {
        kind: 'fault-matrix',
        tool: 'admin-conformance',
        version: pkg.version,
        runId,
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        exitCode,
        ok,
        areas,
        clean: { ok: cleanOk, counts, failedChecks: cleanChecks.filter((x) => !x.c.ok).map((x) => ({ file: x.file, check: x.c.name, failures: x.c.failures })) },
        faults,
        suites: suites.map((s) => ({ file: s.file, ok: s.ok, durationMs: s.durationMs, ...(s.error ? { error: s.error } : {}) })),
      }
      const lines = ['', `clean mock: ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped of ${counts.checks} checks`]
      for (const x of matrix.clean.failedChecks) lines.push(`  ✗ ${x.file}: ${x.check}`)
      for (const s of crashed) lines.push(`  ✗ ${s.file}: ${s.error}`)
      lines.push('', 'faults:')
      for (const f of faults) {
        lines.push(`  ${f.caught ? 'caught' : 'MISSED'}  ${f.name.padEnd(38)} ${f.caught ? `${f.failedChecks.length} check(s), e.g. ${f.failedChecks[0]!.check}` : 'no check failed'}`)
      }
      lines.push('', `${faults.filter((f) => f.caught).length} of ${faults.length} faults caught; clean mock ${cleanOk ? 'passes' : 'FAILS'}; ${seconds(matrix.durationMs)}`)
      human.write(redact(lines.join('\n'), secrets) + '\n')
      if (opts.reporter) await writeReport(opts, io, human, secrets, opts.reporter === 'json' ? JSON.stringify(matrix, null, 2) + '\n' : opts.reporter === 'tap' ? tap.raw : await otherReport(opts.reporter, tap.raw, null))
      return { exitCode, matrix }
    }

    const checks = suites.flatMap((s) => s.checks)
    const counts = countOf(checks)
    const allOk = suites.every((s) => s.ok && !s.error) && counts.fail === 0
    let exitCode: number = allOk ? EXIT.ok : EXIT.failed
    let nothing = ''
    if (counts.checks === 0) {
      nothing = opts.grep ? `no check matched --grep ${opts.grep}` : 'the selected suites hold no checks'
      exitCode = EXIT.usage
    }
    const report: RunReport = {
      tool: 'admin-conformance',
      version: pkg.version,
      runId,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      exitCode,
      ok: exitCode === EXIT.ok,
      target: {
        mock: target.isMock,
        writes: target.allowWrites,
        ...(target.mas ? { mas: { url: target.mas.url, version: pf.masVersion } } : {}),
        ...(target.hs ? { hs: { url: target.hs.url, prefix: target.hs.prefix, clientPrefix: target.hs.clientPrefix, version: pf.hsVersion } } : {}),
      },
      areas,
      ...(opts.grep ? { grep: opts.grep } : {}),
      counts,
      suites,
    }

    // Summary: per-suite timing, totals, the failed checks.
    const lines = ['', 'suite timing:']
    for (const s of suites) if (!opts.grep || s.checks.length || s.error) lines.push(`  ${s.file.padEnd(44)} ${seconds(s.durationMs).padStart(7)}  ${s.checks.length} checks`)
    lines.push('')
    if (nothing) lines.push(nothing)
    lines.push(`${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped of ${counts.checks} checks in ${seconds(report.durationMs)}`)
    const failed = suites.flatMap((s) => s.checks.filter((c) => !c.ok).map((c) => `${s.file}: ${c.name}`))
    for (const s of crashed) failed.push(`${s.file}: ${s.error}`)
    if (failed.length) lines.push('failed:', ...failed.map((f) => `  ✗ ${f}`))
    human.write(redact(lines.join('\n'), secrets) + '\n')

    if (opts.reporter) {
      const text = opts.reporter === 'json' ? JSON.stringify(report, null, 2) + '\n' : opts.reporter === 'tap' ? tap.raw : await otherReport(opts.reporter, tap.raw, report)
      await writeReport(opts, io, human, secrets, text)
    }
    return { exitCode, report }
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    for (const c of cleanups) {
      try {
        await c()
      } catch {
        // clean-up is best effort
      }
    }
  }
}

async function otherReport(reporter: Reporter, raw: string, report: RunReport | null): Promise<string> {
  if (reporter === 'junit' && report) return junit(report)
  if (reporter === 'jsonstream' || reporter === 'markdown') return tapStreamReport(reporter, raw)
  // junit of a fault matrix: tap's own JUnit reporter over the raw stream (targets become nested suites)
  const mod = (await import('@tapjs/reporter')) as unknown as Record<string, new () => NodeJS.ReadWriteStream>
  const stream = new mod.JUnit!()
  let out = ''
  stream.on('data', (d: Buffer | string) => (out += d.toString()))
  await new Promise<void>((resolve) => {
    stream.on('end', () => resolve())
    stream.end(raw)
  })
  return out
}

async function writeReport(opts: Options, io: RunIO, human: RunIO['stdout'], secrets: string[], text: string): Promise<void> {
  const safe = redact(text, secrets)
  if (opts.output) {
    await new Promise<void>((resolve, reject) => {
      const w = createWriteStream(opts.output!)
      w.on('error', reject)
      w.end(safe, () => resolve())
    })
    human.write(`report (${opts.reporter}) written to ${opts.output}\n`)
  } else io.stdout.write(safe)
}

export async function main(argv: string[]): Promise<number> {
  const { exitCode } = await run(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env })
  return exitCode
}
