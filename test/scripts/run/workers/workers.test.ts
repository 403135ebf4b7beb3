// The suite workers (scripts/run/workers/workers.ts): many files in few processes, and still each file reported as
// itself when it fails, throws at load, kills its process or hangs past its time limit; the files after it
// run in a new worker. The files here stand in for suite bundles: they register on the subtest the worker
// gives them (globalThis.__acSuiteTap), as a bundle's `tap` does.
import t from 'tap'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import {
  BUNDLED_MAX_OPT,
  BUNDLED_SEMI_SPACE_MIB,
  SuiteWorkers,
  runWorkers,
  workerV8Flags,
} from '../../../../scripts/run/workers/workers.ts'
import { TapMerge } from '../../../../scripts/run/workers/tap-merge.ts'
import { prepareSuites } from '../../../../scripts/run/engine/suite-build.ts'
import type { TapNode } from '../../../../scripts/run/results/tap-tree.ts'

const NOOP_PROBE = 'data:text/javascript,'

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-workers-'))
  mkdirSync(path.join(dir, 'tmp'), { recursive: true })
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), `const t = globalThis.__acSuiteTap\n${text}\n`)
  }
  return dir
}

const passing = (name: string) => `t.test('${name}: one', async (t) => t.pass('fine'))\nt.test('${name}: two', async (t) => t.pass('fine'))`

async function runIn(
  dir: string,
  files: string[],
  o: { jobs?: number; timeoutS?: number; grep?: string; tapUrl?: string; env?: Record<string, string> } = {},
) {
  const seen: TapNode[] = []
  const run = await runWorkers({
    project: dir,
    files,
    env: { ...process.env, FORCE_COLOR: '0', ...o.env },
    jobs: o.jobs ?? 2,
    timeoutS: o.timeoutS ?? 30,
    ...(o.grep ? { grep: o.grep } : {}),
    ...(o.tapUrl ? { tapUrl: o.tapUrl } : {}),
    matrix: false,
    secrets: ['sekrit-token-value'],
    onFile: (n) => seen.push(n),
    onChild: () => {},
    stderr: { write: () => true },
    probeUrl: NOOP_PROBE,
  })
  return { run, seen, byName: new Map(seen.map((n) => [n.name, n])) }
}

t.test('every file is one top-level subtest with its checks, whichever worker ran it', async (t) => {
  const files = ['suites/a/one.suite.mjs', 'suites/a/two.suite.mjs', 'suites/b/three.suite.mjs']
  const dir = project(Object.fromEntries(files.map((f) => [f, passing(path.basename(f))])))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { run, seen, byName } = await runIn(dir, files)
  t.same(seen.map((n) => n.name).sort(), [...files].sort(), 'each file once')
  for (const f of files) {
    const n = byName.get(f)!
    t.equal(n.result?.ok, true, `${f} passed`)
    t.same(
      n.children.map((c) => c.name),
      [`${path.basename(f)}: one`, `${path.basename(f)}: two`],
      `${f} holds its own checks`,
    )
  }
  t.match(run.raw, /^TAP version 14\n/, 'one TAP stream')
  t.match(run.raw, /\n1\.\.3\n$/, 'planned for the three files')
  t.same(
    [...run.raw.matchAll(/^ok (\d+) - /gm)].map((m) => Number(m[1])),
    [1, 2, 3],
    'numbered across the workers',
  )
})

t.test('a file that throws, exits or hangs is reported as itself; the others still run', async (t) => {
  const files = [
    'suites/a/throws.suite.mjs',
    'suites/a/exits.suite.mjs',
    'suites/a/hangs.suite.mjs',
    'suites/a/waits.suite.mjs',
    'suites/a/after.suite.mjs',
  ]
  const dir = project({
    'suites/a/throws.suite.mjs': "throw new Error('broken at load')",
    'suites/a/exits.suite.mjs':
      "t.test('exits: first', async (t) => { t.pass('x'); process.exit(7) })\nt.test('exits: never', async (t) => t.pass('x'))",
    // a busy loop: tap's own timer cannot fire, the watchdog has to kill the worker
    'suites/a/hangs.suite.mjs': "t.test('hangs: forever', async () => { const end = Date.now() + 60_000; while (Date.now() < end); })",
    // waiting forever: tap's own time limit ends the file, and the same worker goes on
    'suites/a/waits.suite.mjs': "t.test('waits: forever', () => new Promise(() => {}))",
    'suites/a/after.suite.mjs': passing('after'),
  })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const started = Date.now()
  const { seen, byName } = await runIn(dir, files, { jobs: 1, timeoutS: 1 })
  t.ok(Date.now() - started < 30_000, 'the hang was cut short')
  t.same(seen.map((n) => n.name).sort(), [...files].sort(), 'every file has a result')
  t.equal(byName.get('suites/a/throws.suite.mjs')?.result?.ok, false, 'the file that throws at load fails')
  t.match(JSON.stringify(byName.get('suites/a/throws.suite.mjs')), /broken at load/, 'with its error')
  const exits = byName.get('suites/a/exits.suite.mjs')!
  t.equal(exits.result?.ok, false, 'the file that exits its process fails')
  // (tap closes the file on its way out, its running check "unfinished"; the runner reads a failed file)
  t.notOk(
    exits.children.some((c) => c.name === 'exits: never' && c.result?.ok),
    'the check after the exit did not run',
  )
  const hangs = byName.get('suites/a/hangs.suite.mjs')!
  t.equal(hangs.result?.ok, false, 'the file that hangs fails')
  t.match(hangs.result?.diag, { expired: 'suites/a/hangs.suite.mjs' }, 'as timed out')
  const waits = byName.get('suites/a/waits.suite.mjs')!
  t.equal(waits.result?.ok, false, 'the file that waits forever fails')
  t.match(JSON.stringify(waits), /timeout|expired/, 'as timed out')
  t.equal(byName.get('suites/a/after.suite.mjs')?.result?.ok, true, 'the file after them passes in a new worker')
})

t.test(
  "with the run's tap, no async hooks: an error outside a check's promises fails the test under way, and the run goes on",
  async (t) => {
    const { tapUrl } = await prepareSuites(mkdtempSync(path.join(tmpdir(), 'ac-suite-project-')), {}, { write: () => true })
    const files = ['suites/a/strays.suite.mjs', 'suites/a/next.suite.mjs']
    const wait = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms}))`
    const dir = project({
      'suites/a/strays.suite.mjs': [
        "import { executionAsyncId } from 'node:async_hooks'",
        `t.test('strays: timer throws', async (tt) => { tt.pass('before'); setTimeout(() => { throw new Error('thrown in a timer') }, 5); ${wait(100)} })`,
        `t.test('strays: rejection nobody awaited', async (tt) => { tt.pass('before'); Promise.reject(new Error('rejected, never awaited')); ${wait(100)} })`,
        "t.test('strays: after them', async (tt) => tt.pass('fine'))",
        // (with async hooks on, each promise gets an id of its own, which a continuation runs under)
        "t.test('strays: promises', async (tt) => { await null; const a = executionAsyncId(); await null; tt.equal(executionAsyncId(), a, 'no async hook follows them') })",
        `t.test('strays: leaves a timer', async (tt) => { tt.pass('done'); setTimeout(() => { throw new Error('thrown after its check') }, 20) })`,
        `t.test('strays: waits', async (tt) => { ${wait(200)}; tt.pass('waited') })`,
      ].join('\n'),
      'suites/a/next.suite.mjs': passing('next'),
    })
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    // (NODE_OPTIONS emptied: tap's coverage, preloaded into the processes it starts, follows promises with its own hooks)
    const { byName } = await runIn(dir, files, { jobs: 1, tapUrl, env: { NODE_OPTIONS: '' } })
    const strays = byName.get('suites/a/strays.suite.mjs')!
    const check = (name: string) => strays.children.find((c) => c.name === name)
    t.equal(check('strays: timer throws')?.result?.ok, false, "a timer's throw fails the check under way")
    t.match(JSON.stringify(check('strays: timer throws')), /thrown in a timer/, 'with its message')
    t.equal(check('strays: rejection nobody awaited')?.result?.ok, false, 'so does a rejection nobody awaited')
    t.match(JSON.stringify(check('strays: rejection nobody awaited')), /rejected, never awaited/, 'with its message')
    t.equal(check('strays: after them')?.result?.ok, true, 'the next check runs and passes')
    t.equal(check('strays: promises')?.result?.ok, true, "no async hook follows a check's promises")
    // (without async hooks, an error from a check that has ended fails the test under way when it arrives)
    t.equal(strays.result?.ok, false, 'the file fails')
    t.match(JSON.stringify(strays), /thrown after its check/, 'an error after its check ended is not lost')
    t.equal(byName.get('suites/a/next.suite.mjs')?.result?.ok, true, 'the next file runs in the same worker and passes')
  },
)

t.test("a file's leftovers (its top-level comments) stay with the file", async (t) => {
  const files = ['suites/a/leaves.suite.mjs']
  const leftover = JSON.stringify({ target: 'mas', kind: 'oauth2-client', id: 'X1', reason: 'cannot delete' })
  const dir = project({
    'suites/a/leaves.suite.mjs': `t.test('leaves: one', async (tt) => { t.comment('ac-leftover ${leftover}'); tt.pass('ok') })`,
  })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { byName } = await runIn(dir, files)
  t.match(byName.get('suites/a/leaves.suite.mjs')?.leftovers, [{ kind: 'oauth2-client', id: 'X1' }], "the leftover is the file's")
})

t.test('--grep reaches the checks, one level under the files', async (t) => {
  const files = ['suites/a/one.suite.mjs']
  const dir = project({ 'suites/a/one.suite.mjs': passing('one') })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { byName } = await runIn(dir, files, { grep: 'two$' })
  const n = byName.get('suites/a/one.suite.mjs')!
  t.same(
    n.children.map((c) => [c.name, typeof c.result?.skip === 'string' && c.result.skip.startsWith('filter: ')]),
    [
      ['one: one', true],
      ['one: two', false],
    ],
  )
})

t.test('workers started before the target: the target and the files come later, on their stdin', async (t) => {
  const files = ['suites/a/env.suite.mjs', 'suites/a/second.suite.mjs']
  const dir = project({
    'suites/a/env.suite.mjs':
      "t.test('env: target', async (tt) => tt.equal(process.env.AC_TEST_TARGET, 'given-late', 'the target arrived'))",
    'suites/a/second.suite.mjs': passing('second'),
  })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const workers = new SuiteWorkers({
    project: dir,
    jobs: 2,
    timeoutS: 30,
    matrix: false,
    probeUrl: NOOP_PROBE,
    env: { ...process.env, FORCE_COLOR: '0' },
    stderr: { write: () => true },
  })
  // the workers wait (as they do while the mock starts and the preflight runs)
  await new Promise((r) => setTimeout(r, 300))
  const seen: TapNode[] = []
  const run = await workers.run({
    files,
    env: { ...process.env, FORCE_COLOR: '0', AC_TEST_TARGET: 'given-late' },
    secrets: [],
    onFile: (n) => seen.push(n),
    onChild: () => {},
  })
  t.equal(run.exitCode, 0, 'the workers ended well')
  t.same(
    seen.map((n) => [n.name, n.result?.ok]).sort(),
    files.map((f) => [f, true]),
    'both files passed, the environment given with the files',
  )
  t.throws(() => workers.run({ files, env: {}, secrets: [], onFile: () => {}, onChild: () => {} }), /run once/, 'a second run is refused')
})

t.test('a worker given nothing exits: stopped with close(), or its stdin ended without a line', async (t) => {
  const dir = project({})
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const workers = new SuiteWorkers({
    project: dir,
    jobs: 1,
    timeoutS: 30,
    matrix: false,
    probeUrl: NOOP_PROBE,
    env: { ...process.env },
    stderr: { write: () => true },
  })
  const child = (workers as unknown as { waiting: { child: import('node:child_process').ChildProcess }[] }).waiting[0]!.child
  const closed = new Promise<string>((r) => child.on('close', (code, signal) => r(String(signal ?? code))))
  workers.close()
  t.equal(await closed, 'SIGKILL', 'close() stops a waiting worker')
  const worker = fileURLToPath(new URL('../../../../scripts/run/workers/suite-worker.mjs', import.meta.url))
  const started = Date.now()
  const r = spawnSync(process.execPath, [worker], { cwd: dir, input: '', encoding: 'utf8', timeout: 20_000 })
  t.equal(r.status, 0, 'stdin ended without a line: exit 0')
  t.equal(r.stdout, '', 'having run nothing, it says nothing')
  t.ok(Date.now() - started < 20_000, 'without waiting for anything')
})

t.test('each worker claims the files in the order it is given', async (t) => {
  const files = ['suites/a/one.suite.mjs', 'suites/a/two.suite.mjs', 'suites/a/three.suite.mjs']
  const dir = project(Object.fromEntries(files.map((f) => [f, passing(path.basename(f))])))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const seen: string[] = []
  await runWorkers({
    project: dir,
    files,
    orderOf: () => [2, 0, 1],
    env: { ...process.env, FORCE_COLOR: '0' },
    jobs: 1,
    timeoutS: 30,
    matrix: false,
    secrets: [],
    onFile: (n) => seen.push(n.name),
    onChild: () => {},
    stderr: { write: () => true },
    probeUrl: NOOP_PROBE,
  })
  t.same(seen, [files[2], files[0], files[1]], 'run (and reported as they end) in the given order')
})

t.test('the merge: blocks kept whole and renumbered, a worker that died mid-file closes it as failed', async (t) => {
  let out = ''
  const m = new TapMerge((s) => (out += s))
  const a = m.worker()
  const b = m.worker()
  a.write('TAP version 14\n# Subtest: x\n    ok 1 - c\n# ac-leftover {}\n    1..1\nok 1 - x # time=1ms\n')
  b.write('TAP version 14\n# Subtest: y\n    ok 1 - d\n')
  a.write('# Subtest: z\n    not ok 1 - e\n    1..1\nnot ok 2 - z\n  ---\n  at: here\n  ...\n1..2\n# time=3ms\n')
  a.end({ exitCode: 1 })
  b.end({ signal: 'SIGKILL' })
  m.end()
  t.equal(
    out,
    [
      'TAP version 14',
      '# Subtest: x',
      '    ok 1 - c',
      '    # ac-leftover {}',
      '    1..1',
      'ok 1 - x # time=1ms',
      '# Subtest: z',
      '    not ok 1 - e',
      '    1..1',
      'not ok 2 - z',
      '  ---',
      '  at: here',
      '  ...',
      '# Subtest: y',
      '    ok 1 - d',
      'not ok 3 - y',
      '  ---',
      '  signal: "SIGKILL"',
      '  ...',
      '1..3',
      '',
    ].join('\n'),
  )
})

t.test(
  "the workers' V8 flags: against the bundled mock no optimizing compiler, against a real target the defaults but a small heap",
  async (t) => {
    const bundled = workerV8Flags(false, true)
    t.ok(bundled.includes(BUNDLED_MAX_OPT), 'the bundled mock: the baseline compiler at most (decision 0017)')
    t.ok(bundled.includes(`--max-semi-space-size=${BUNDLED_SEMI_SPACE_MIB}`), 'and its young generation')
    const real = workerV8Flags(false, false)
    t.notOk(
      real.some((f) => f.startsWith('--max-opt')),
      'a real target: every compiler',
    )
    t.ok(real.includes('--liftoff-only'), 'and WebAssembly by the baseline compiler (memory)')
    t.same(workerV8Flags(true, true), [], "the fault matrix: V8's defaults")
  },
)
