// The new user: the package packed, installed globally from the tarball into a prefix of its own (from
// the local npm cache only), the install made read-only, and every command run from an empty folder by
// a user who cannot write to it (nobody, when this runs as root, as CI does), with a home and cache of
// its own. Nothing may be built or written in the package's folder at run time: the commands run what
// was built when the package was packed (dist/), and cache what they must in the user's cache (0700).
import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ROOT, asOtherUser, filesUnder, npmOffline, openTempDir, pack } from './packed.ts'

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> }
const work = openTempDir('ac-new-user-')
t.teardown(() => {
  spawnSync('chmod', ['-R', 'u+w', work])
  rmSync(work, { recursive: true, force: true })
})

const tarball = pack(work)
const prefix = path.join(work, 'prefix')
const installed = npmOffline(['install', '-g', '--prefix', prefix, tarball], work)
const pkgDir = path.join(prefix, 'lib', 'node_modules', 'admin-conformance')
const bin = path.join(prefix, 'bin', 'admin-conformance')

t.test('the packed package: the commands and their build, no tests, two runtime dependencies', async (t) => {
  t.equal(installed.status, 0, `installed from the tarball offline\n${installed.output}`)
  if (installed.online) t.comment('the npm cache lacked the registry documents of the dependencies: npm asked the registry for them')
  const files = filesUnder(pkgDir).filter((f) => !f.startsWith('node_modules/'))
  t.ok(files.includes('dist/cli/cli.mjs') && files.includes('dist/build.json'), 'the build is in it')
  t.ok(
    files.some((f) => /^dist\/validators\/[0-9a-f]+\.cjs$/.test(f)),
    'the precompiled validators are in it',
  )
  t.ok(files.includes('dist/run/node_modules/@tapjs/admin-conformance-run/tap.mjs'), 'tap, built into one module, is in it')
  t.same(
    files.filter((f) => /^(test|bench|\.ci|docker)\//.test(f) || /\.test\.ts$/.test(f) || f.startsWith('scripts/dev/')),
    [],
    'no tests, benches, CI or dev scripts',
  )
  t.ok(
    files.includes('README.md') && files.includes('docs/ci/github-actions.yml') && files.includes('docs/ci/gitlab-ci.yml'),
    'the README and the CI recipes',
  )
  const deps = readdirSync(path.join(pkgDir, 'node_modules')).sort()
  t.same(Object.keys(pkg.dependencies).sort(), ['ajv', 'ajv-formats'], 'runtime dependencies: ajv and its formats alone')
  for (const heavy of ['testcontainers', 'tap', 'tsx', 'esbuild', '@tapjs', 'undici', '@faker-js'])
    t.notOk(deps.includes(heavy), `${heavy} not installed`)
})

// The install read-only, and a user of its own for the commands.
spawnSync('chmod', ['-R', 'a-w', prefix])
const other = asOtherUser()
const home = path.join(work, 'home')
const cwd = path.join(work, 'somewhere')
for (const d of [home, cwd]) {
  mkdirSync(d, { mode: 0o700 })
  if (other) chownSync(d, other.uid, other.gid)
}
const cache = path.join(home, 'cache')
const env = {
  PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
  HOME: home,
  XDG_CACHE_HOME: cache,
  LANG: 'C.UTF-8',
}

// (through env -i: tap's process tracking adds its own preload to the environment of what a test spawns)
const clean = ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)]

function as(args: string[], input?: string, timeoutMs = 240_000) {
  const argv = [...clean, ...(other?.prefix ?? []), bin, ...args]
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    ...(input !== undefined ? { input } : { stdio: ['ignore', 'pipe', 'pipe'] }),
  })
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', all: `${r.stdout ?? ''}${r.stderr ?? ''}` }
}

t.test(`every command works for ${other ? 'nobody' : 'this user'}, the install read-only`, async (t) => {
  if (installed.status !== 0) return t.fail('not installed')
  t.equal(existsSync(path.join(pkgDir, 'dist', 'build.json')), true)
  t.equal(statSync(pkgDir).mode & 0o222, 0, 'no write bit left on the package folder')

  const version = as(['--version'])
  t.equal(version.stdout.trim(), pkg.version, '--version prints the version')
  const help = as(['--help'])
  t.equal(help.status, 0)
  for (const c of ['run', 'mock', 'audit-log', 'plan-upgrade', 'deploy']) {
    t.match(help.stdout, new RegExp(`^  ${c} +\\S`, 'm'), `--help lists ${c} with its line`)
    const h = as([c, '--help'])
    t.equal(h.status, 0, `${c} --help exits 0\n${h.stderr}`)
    t.match(h.stdout, new RegExp(`usage: admin-conformance ${c}`), `${c} --help prints its usage`)
  }

  const run = as(['run', '--output', 'report.xml'])
  t.equal(run.status, 0, `run against the bundled mock passes\n${run.all.slice(-3000)}`)
  t.match(run.stdout, /^(\d{3,}) passed, 0 failed/m, 'hundreds of checks passed, none failed')
  t.notMatch(run.all, /could not be built|through tsx|ENOENT|EACCES/, 'nothing built, nothing missing')
  t.match(readFileSync(path.join(cwd, 'report.xml'), 'utf8'), /<testsuites[^>]*failures="0"/, 'the JUnit report written where the user is')
  const ownCache = readdirSync(path.join(cache, 'admin-conformance'))
  t.equal(statSync(path.join(cache, 'admin-conformance')).mode & 0o777, 0o700, 'the cache folder is 0700')
  t.ok(ownCache.length > 0, 'the run cached what it learnt in the user cache')
  const compiled = ownCache.flatMap((d) => {
    const v = path.join(cache, 'admin-conformance', d, 'validators')
    return existsSync(v) ? readdirSync(v) : []
  })
  t.same(
    compiled.filter((f) => !f.endsWith('.v8cache')),
    [],
    'no validator compiled at run time: the shipped ones (dist/validators/) fit the installed ajv',
  )
  // (the package's folder is read-only: V8's code cache of the shipped validators goes to the user's cache, decision 0014)
  t.match(compiled.join(' '), /^[0-9a-f]+\.cjs\.[0-9a-f]{8}\.v8cache/, "the shipped validators' code cache is in the user's cache")
  const grep = as(['run', '--grep', 'no-such-check-anywhere'])
  t.match(
    grep.all,
    /no check matched --grep no-such-check-anywhere \(none of the \d+ checks/,
    '--grep of no check is told at once, from the names the first run cached',
  )

  const plan = as(['plan-upgrade', '--from', 'v1.98.0', '--to', 'v1.120.0'])
  t.equal(plan.status, 0, `plan-upgrade prints a plan\n${plan.stderr}`)
  t.match(plan.stdout, /rollback/i)

  const deploy = as(['deploy'])
  t.not(deploy.status, 0, 'deploy without testcontainers does not start')
  t.match(deploy.all, /testcontainers/, 'and names the package to install')
  t.notMatch(deploy.all, /ERR_MODULE_NOT_FOUND|at .*\.mjs:\d+/, 'a message, not a stack')
})

t.test('mock answers, writes its request log, and stops; audit-log reads that log from a file and stdin', async (t) => {
  if (installed.status !== 0) return t.fail('not installed')
  const log = path.join(cwd, 'requests.log')
  const argv = [...clean, ...(other?.prefix ?? []), bin, 'mock', '--port', '0', '--admin-token', 'new-user-token', '--log-file', log]
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the mock did not start:\n${out}`)), 60_000)
    child.stdout.on('data', () => {
      const m = /mock listening on (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    })
  })
  const users = await fetch(`${url}/api/admin/v1/users`, { headers: { authorization: 'Bearer new-user-token' } })
  t.equal(users.status, 200, 'the admin API answers with the token')
  t.match(((await users.json()) as { data: unknown[] }).data, Array)
  const denied = await fetch(`${url}/api/admin/v1/users`)
  t.equal(denied.status, 400, 'and refuses without it (400, as the auth service does for a missing header)')
  await denied.text()
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  child.kill('SIGINT')
  t.equal(await exited, 0, 'stops on SIGINT, exit 0')

  writeFileSync(path.join(work, 'copied.log'), readFileSync(log))
  chmodSync(path.join(work, 'copied.log'), 0o644)
  for (const [what, args, input] of [
    ['a file', ['audit-log', log], undefined],
    ['a file, in worker threads', ['audit-log', '--jobs', '2', log], undefined],
    ['stdin', ['audit-log', '-'], readFileSync(log, 'utf8')],
  ] as const) {
    const r = as([...args], input)
    t.equal(r.status, 0, `audit-log of ${what} exits 0\n${r.stderr}`)
    t.match(r.stdout, /2 requests/, `audit-log of ${what} counts the mock's two requests`)
  }
})

t.test('nothing was written into the package folder', async (t) => {
  if (installed.status !== 0) return t.fail('not installed')
  spawnSync('chmod', ['-R', 'u+w', prefix])
  const after = filesUnder(pkgDir)
  t.same(
    after.filter((f) => /(^|\/)(\.tap|tmp)\//.test(f) || f.startsWith('dist/cli/run-') || f.startsWith('dist/suites/')),
    [],
    'no tap state, scratch or run-time builds',
  )
})
