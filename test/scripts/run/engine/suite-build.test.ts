// The suite files built once per change of their sources (scripts/run/engine/suite-build.ts) and the order in
// which the workers claim them (scripts/run/engine/suite-files.ts).
import t from 'tap'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { cachedBuild, prepareSuites, PROBE_BUILT, SUITE_TAP_PLUGINS, TAP_BUILD } from '../../../../scripts/run/engine/suite-build.ts'
import { claimOrder, suiteFiles, waitsOnPurpose } from '../../../../scripts/run/engine/suite-files.ts'
import { AREA_NAMES } from '../../../../lib/areas.ts'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const ALL = AREA_NAMES.flatMap((a) => suiteFiles(ROOT, a))

t.test('built once into the cache, then reused; builds unused for long removed, recent ones kept', async (t) => {
  const cache = mkdtempSync(path.join(tmpdir(), 'ac-suite-build-'))
  t.teardown(() => rmSync(cache, { recursive: true, force: true }))
  const old = path.join(cache, '0123456789abcdef')
  const recent = path.join(cache, 'fedcba9876543210')
  mkdirSync(old)
  mkdirSync(recent)
  const hourAgo = new Date(Date.now() - 3600_000)
  utimesSync(old, hourAgo, hourAgo)
  const dir = await cachedBuild(cache)
  t.match(path.basename(dir), /^[0-9a-f]{16}$/, 'a folder named by the key')
  for (const f of ALL) t.ok(existsSync(path.join(dir, f.replace(/\.suite\.ts$/, '.suite.mjs'))), `${f} built`)
  t.ok(existsSync(path.join(dir, PROBE_BUILT)), 'the probe built')
  const shared = pathToFileURL(path.join(dir, 'lib', 'schemas.mjs')).href
  t.ok(existsSync(fileURLToPath(shared)), 'the shared schema module built')
  t.ok(
    readFileSync(path.join(dir, 'suites', 'admin', 'users.suite.mjs'), 'utf8').includes('"../../lib/schemas.mjs"'),
    'the bundles import the shared module by its path relative to them (the build may move whole)',
  )
  const probe = statSync(path.join(dir, PROBE_BUILT)).mtimeMs
  t.equal(await cachedBuild(cache), dir, 'the same folder the second time')
  t.equal(statSync(path.join(dir, PROBE_BUILT)).mtimeMs, probe, 'not built again')
  t.same(
    readdirSync(cache).sort(),
    [path.basename(dir), path.basename(recent)].sort(),
    'the build unused for an hour is gone, the recent one (a run of other sources may use it) kept',
  )
})

t.test('runs that build at the same time share one build', async (t) => {
  const cache = mkdtempSync(path.join(tmpdir(), 'ac-suite-build-'))
  t.teardown(() => rmSync(cache, { recursive: true, force: true }))
  const [a, b] = await Promise.all([cachedBuild(cache), cachedBuild(cache)])
  t.equal(a, b, 'the same folder')
  t.same(readdirSync(cache), [path.basename(a)], 'nothing half-built left behind')
})

t.test("a run's suites: its project links to the build; names map both ways", async (t) => {
  const project = mkdtempSync(path.join(tmpdir(), 'ac-suite-project-'))
  t.teardown(() => rmSync(project, { recursive: true, force: true }))
  const errors: string[] = []
  const p = await prepareSuites(project, {}, { write: (s: string) => errors.push(s) })
  t.same(errors, [], 'no fallback note')
  t.equal(p.mode, 'bundle')
  t.ok(lstatSync(path.join(project, 'suites')).isSymbolicLink(), 'suites/ is a link')
  t.match(
    readlinkSync(path.join(project, 'suites')),
    /admin-conformance[\\/][0-9a-f]{16}[\\/]suites[\\/][0-9a-f]{16}[\\/]suites$/,
    "to the cached build, in the user's cache",
  )
  t.notOk(readlinkSync(path.join(project, 'suites')).startsWith(ROOT), 'not in the package')
  t.equal(p.built('suites/admin/users.suite.ts'), 'suites/admin/users.suite.mjs')
  t.equal(p.sourceOf('suites/admin/users.suite.mjs'), 'suites/admin/users.suite.ts')
  t.match(readFileSync(path.join(project, '.taprc'), 'utf8'), /--import=file:.*probe\.mjs/, "tap's runner preloads the built probe")
  const tsx = await prepareSuites(mkdtempSync(path.join(tmpdir(), 'ac-suite-project-')), { AC_RUN_LOADER: 'tsx' }, { write: () => true })
  t.equal(tsx.mode, 'tsx', 'AC_RUN_LOADER=tsx: the sources')
})

t.test("the built tap keeps no finished test: a worker's memory does not grow with the checks it ran", async (t) => {
  // (tap's plugins kept every test in a static Map: 20 of 20 alive after they ended, decision 0004)
  const p = await prepareSuites(mkdtempSync(path.join(tmpdir(), 'ac-suite-project-')), {}, { write: () => true })
  t.equal(p.mode, 'bundle')
  const script = `
    const { default: tap } = await import(${JSON.stringify(p.tapUrl)})
    const refs = []
    for (let i = 0; i < 20; i++) await tap.test('file ' + i, async (t) => { refs.push(new WeakRef(t)); t.ok(true) })
    await new Promise((r) => setTimeout(r, 50))
    globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); globalThis.gc()
    process.stderr.write(JSON.stringify({ made: refs.length, alive: refs.filter((r) => r.deref() !== undefined).length }))`
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  t.same(JSON.parse(r.stderr.slice(r.stderr.indexOf('{'))), { made: 20, alive: 0 }, 'the 20 finished tests collected')
})

t.test('files that wait on purpose say so; with several workers the first runs them first, the others last', async (t) => {
  const waiting = ALL.filter((f) => waitsOnPurpose(ROOT, f))
  t.same(
    waiting,
    ['suites/requestlog/http-server-response.suite.ts', 'suites/upgrade/pre-upgrade.suite.ts'],
    'the log and the pre-upgrade files',
  )
  t.notOk(waitsOnPurpose(ROOT, 'suites/admin/no-such.suite.ts'), 'a missing file does not')
  const waits = [false, true, false, true]
  t.same(claimOrder(waits, 0, 1), [0, 1, 2, 3], 'one worker: as listed')
  t.same(claimOrder(waits, 0, 2), [1, 3, 0, 2], 'worker 0 of 2: the waiting files first')
  t.same(claimOrder(waits, 1, 2), [0, 2, 1, 3], 'worker 1 of 2: the waiting files last')
})

t.test('a file marked in its header only: the marker deeper in a file does not count', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'ac-waits-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  writeFileSync(path.join(root, 'a.suite.ts'), '// a file\n// @waits on purpose\nexport {}\n')
  writeFileSync(path.join(root, 'b.suite.ts'), `// a file\n${'x\n'.repeat(3000)}// @waits too late\n`)
  writeFileSync(path.join(root, 'c.suite.ts'), "// a file\nconst s = '// @waits in a string'\n")
  t.ok(waitsOnPurpose(root, 'a.suite.ts'))
  t.notOk(waitsOnPurpose(root, 'b.suite.ts'))
  t.notOk(waitsOnPurpose(root, 'c.suite.ts'))
})

/** What a tap module (a URL) gives a test: its plugins' count and, for each name, whether `t[name]` is a function. */
function tapMethods(url: string, names: string[]): { plugins: number; has: Record<string, boolean> } {
  const code = `const { default: t } = await import(${JSON.stringify(url)}); process.stderr.write(JSON.stringify({ plugins: t.plugins.length, has: Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, typeof t[n] === 'function'])) }))`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 })
  return JSON.parse(r.stderr) as { plugins: number; has: Record<string, boolean> }
}

t.test("the run's tap has only the plugins the suites use, and the suites use no other", async (t) => {
  const dir = await cachedBuild()
  // tap's own list of what its plugins and its core give a test
  const names = ['after', 'afterEach', 'before', 'beforeEach', 'chdir', 'teardown', 'only', 'ok', 'notOk', 'equal', 'not', 'same']
    .concat(['match', 'type', 'pass', 'fail', 'comment', 'plan', 'test', 'mockRequire', 'mockImport', 'createMock', 'intercept'])
    .concat(['captureFn', 'capture', 'testdir', 'fixture', 'matchSnapshot', 'resolveMatchSnapshot', 'stdin', 'spawn', 'worker'])
  const built = tapMethods(pathToFileURL(path.join(dir, TAP_BUILD)).href, names)
  const full = tapMethods('tap', names)
  t.equal(built.plugins, SUITE_TAP_PLUGINS.length, `the built tap makes ${SUITE_TAP_PLUGINS.join(', ')} for each test`)
  t.ok(full.plugins > built.plugins, `tap from node_modules makes ${full.plugins}`)
  for (const n of ['teardown', 'ok', 'notOk', 'equal', 'not', 'same', 'match', 'type', 'pass', 'fail', 'comment', 'plan', 'test'])
    t.ok(built.has[n], `t.${n} is there`)
  const gone = names.filter((n) => full.has[n] && !built.has[n])
  t.ok(gone.includes('mockImport') && gone.includes('matchSnapshot'), `gone: ${gone.join(', ')}`)
  const uses: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name)
      if (e.isDirectory()) walk(full)
      else if (/\.(ts|mts)$/.test(e.name)) {
        const m = readFileSync(full, 'utf8').match(new RegExp(`\\.(${gone.join('|')})\\(`, 'g'))
        if (m) uses.push(`${path.relative(ROOT, full)}: ${m.join(' ')}`)
      }
    }
  }
  walk(path.join(ROOT, 'suites'))
  t.same(uses, [], "no suite calls a method of a plugin the run's tap leaves out")
})

/** The TAP that a tree of tests in a worker's shape prints with the run's tap, subtests' lines passed through or parsed again. */
function workerShapedTap(url: string, passThrough: boolean): string {
  const code = `const { default: tap } = await import(${JSON.stringify(url)})
if (${passThrough}) Object.getPrototypeOf(tap.parser).inProcessChildren = true
await tap.test('suites/x/a.suite.ts', async (t) => {
  await t.test('a check that passes', async (t) => { t.equal(1, 1, 'one'); t.comment('a comment'); t.ok(true, 'two') })
  await t.test('a check that fails', async (t) => { t.equal(1, 2, 'a failure with diagnostics'); t.same({ a: [1] }, { a: [2] }, 'another') })
  await t.test('a check with a deviation', async (t) => { t.ok(false, 'known', { todo: 'deviation: x' }); t.pass('skipped one', { skip: 'no target' }) })
  await t.test('a group', async (t) => { await t.test('inside it', async (t) => { t.ok(true, 'deep'); t.ok(false, 'deep failure') }) })
  await t.test('a check that throws', async () => { throw new Error('thrown in a check') })
})
await tap.test('suites/x/b.suite.ts', async (t) => { await t.test('empty', async () => {}); t.ok(true, 'at the file level') })
`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 })
  // tap's times and the root's closing counts (which the runner drops: ../../../../scripts/run/workers/tap-merge.ts) differ
  return r.stdout.replace(/ ?# time=[\d.]+ms/g, '').replace(/\n# \{ total: .*\n/, '\n')
}

t.test("the run's tap passes a subtest's lines up unparsed, and prints the same TAP", async (t) => {
  const dir = await cachedBuild()
  const url = pathToFileURL(path.join(dir, TAP_BUILD)).href
  t.match(readFileSync(fileURLToPath(url), 'utf8'), /this\.#child\.passThrough = true/, "tap-parser's child made to pass lines through")
  const parsed = workerShapedTap(url, false)
  const passed = workerShapedTap(url, true)
  t.match(parsed, /not ok 1 - a failure with diagnostics\n {10}---\n {10}compare: ===\n/, 'the failures carry their diagnostics')
  t.match(parsed, /# TODO deviation: x/, 'a todo is there')
  t.match(parsed, /thrown in a check/, 'a thrown error is there')
  t.equal(passed, parsed, 'the same lines, whether the parents parse their subtests or not')
})
