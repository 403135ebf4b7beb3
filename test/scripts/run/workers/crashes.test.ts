// A suite file whose worker dies (a crash such as heap exhaustion, SIGABRT) or that times out is always
// reported as such, naming the file and the check under way, even when a check of the file had already
// failed; it never turns into a pass or into "no check matched --grep".
import t from 'tap'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runWorkers } from '../../../../scripts/run/workers/workers.ts'
import { Collector } from '../../../../scripts/run/results/collect.ts'
import { nothingProved } from '../../../../scripts/run/results/verdict.ts'
import type { TapNode } from '../../../../scripts/run/results/tap-tree.ts'

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-crashes-'))
  mkdirSync(path.join(dir, 'tmp'), { recursive: true })
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), `const t = globalThis.__acSuiteTap\n${text}\n`)
  }
  return dir
}

async function collect(dir: string, files: string[], o: { timeoutS?: number; grep?: string } = {}) {
  const col = new Collector(false, false)
  const seen: TapNode[] = []
  await runWorkers({
    project: dir,
    files,
    env: { ...process.env, FORCE_COLOR: '0' },
    jobs: 1,
    timeoutS: o.timeoutS ?? 30,
    ...(o.grep ? { grep: o.grep } : {}),
    matrix: false,
    secrets: [],
    onFile: (n) => {
      seen.push(n)
      col.file(n)
    },
    onChild: () => {},
    stderr: { write: () => true },
    probeUrl: 'data:text/javascript,',
  })
  col.finish(files, false, '0')
  return col
}

const FILES = {
  // a failed check, then the worker dies in the next one (as heap exhaustion does: SIGABRT)
  'suites/a/aborts.suite.mjs': [
    "t.test('aborts: fails first', async (t) => t.fail('a failed assertion'))",
    "t.test('aborts: dies', async () => { await new Promise((r) => setTimeout(r, 50)); process.abort() })",
    "t.test('aborts: never', async (t) => t.pass('x'))",
  ].join('\n'),
  // a failed check, then one that never ends (tap's time limit for the file)
  'suites/a/waits.suite.mjs': [
    "t.test('waits: fails first', async (t) => t.fail('a failed assertion'))",
    "t.test('waits: forever', () => new Promise(() => {}))",
  ].join('\n'),
  'suites/a/after.suite.mjs': "t.test('after: fine', async (t) => t.pass('x'))",
}

t.test('a crash or time-out after a failed check is still reported, with the check under way', async (t) => {
  const dir = project(FILES)
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const col = await collect(dir, Object.keys(FILES), { timeoutS: 2 })
  const by = new Map(col.suites.map((s) => [s.file, s]))
  const aborts = by.get('suites/a/aborts.suite.mjs')!
  t.equal(aborts.fail, 1, 'the failed check is counted')
  t.match(aborts.error, /killed by SIGABRT during check "aborts: dies"/, 'the crash is reported with its check')
  t.equal(aborts.ok, false)
  const waits = by.get('suites/a/waits.suite.mjs')!
  t.equal(waits.fail >= 1, true)
  t.match(waits.error, /timed out/, 'the time-out is reported though a check had failed')
  t.equal(by.get('suites/a/after.suite.mjs')?.ok, true, 'the file after them runs in a new worker and passes')
})

t.test('with --grep: a file that crashes before any matching check ends is a failure, not "no check matched"', async (t) => {
  const files = { 'suites/a/dies.suite.mjs': "t.test('dies: at once', async () => { process.abort() })" }
  const dir = project(files)
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const col = await collect(dir, Object.keys(files), { grep: 'dies' })
  const s = col.suites[0]!
  t.match(s.error, /killed by SIGABRT during check "dies: at once"/, 'the crash names its check')
  t.same(nothingProved(['admin'], col.suites, 'dies'), [], 'the verdict does not say "no check matched"')
})
