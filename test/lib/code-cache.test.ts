// A CommonJS module loaded with V8's code cache (lib/code-cache.ts): the first process compiles it and
// leaves the cache when it exits, the next one loads it with that cache, accepted by V8; a cache that
// does not fit (damaged, another source) is rejected and replaced, and the module still loads the same.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { codeCacheFile, requireCached, v8Flags } from '../../lib/code-cache.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const scratch = mkdtempSync(path.join(tmpdir(), 'ac-code-cache-'))
t.teardown(() => rmSync(scratch, { recursive: true, force: true }))

const mod = path.join(scratch, 'validators.cjs')
const cacheDir = path.join(scratch, 'cache')
mkdirSync(cacheDir)
writeFileSync(
  mod,
  `"use strict";\nexports.answer = function answer(n) { return n * 2 + require('node:path').sep.length };\nexports.file = __filename;\n`,
)

/** Loads the module in a new process: how (the cache's use) and what it gave. */
function load(): { cache: string; answer: number; file: string } {
  const code = `import { requireCached } from './lib/code-cache.ts'
const m = requireCached(${JSON.stringify(mod)}, ${JSON.stringify(cacheDir)})
process.stdout.write(JSON.stringify({ cache: m.cache, answer: m.exports.answer(20), file: m.exports.file }))`
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout) as { cache: string; answer: number; file: string }
}

t.test('the first process writes the cache at exit; the next loads with it, accepted', async (t) => {
  const first = load()
  t.same(first, { cache: 'none', answer: 41, file: mod }, 'loaded from its source, require and __filename as in node')
  const files = readdirSync(cacheDir)
  t.equal(files.length, 1, 'one cache file')
  t.match(files[0]!, /^validators\.cjs\.[0-9a-f]{8}\.v8cache$/)
  t.same(load(), { cache: 'accepted', answer: 41, file: mod }, 'the next process: the cache accepted, the same module')
  t.same(load(), { cache: 'accepted', answer: 41, file: mod }, 'and the one after (the cache is not rewritten)')
})

t.test('a damaged cache, or one of another source, is rejected and replaced', async (t) => {
  const cacheFile = path.join(cacheDir, readdirSync(cacheDir)[0]!)
  const good = readFileSync(cacheFile)
  const damaged = Buffer.from(good)
  for (let i = 0; i < 64; i++) damaged[i] = damaged[i]! ^ 0xff
  writeFileSync(cacheFile, damaged)
  t.same(load(), { cache: 'rejected', answer: 41, file: mod }, 'damaged: rejected, the module compiled from its source')
  t.same(load(), { cache: 'accepted', answer: 41, file: mod }, 'written anew')
  writeFileSync(mod, readFileSync(mod, 'utf8').replace('n * 2', 'n * 3'))
  t.same(load(), { cache: 'rejected', answer: 61, file: mod }, 'an edited source: the old cache rejected, the new code runs')
  t.same(load(), { cache: 'accepted', answer: 61, file: mod })
})

t.test('no cache folder: plain require; once per process', async (t) => {
  const a = requireCached(mod, undefined)
  t.equal(a.cache, 'require')
  t.equal(requireCached(mod, undefined), a, 'loaded once')
})

t.test('the cache is per node version and V8 flags, not per preload', async (t) => {
  const plain = codeCacheFile(mod, cacheDir, [])
  t.not(codeCacheFile(mod, cacheDir, ['--max-old-space-size=96']), plain, 'V8 rejects a cache made under other heap flags')
  t.equal(codeCacheFile(mod, cacheDir, ['--import', 'file:///x/probe.mjs', '--require=y.cjs']), plain, 'a preload changes nothing')
  t.same(v8Flags(['--import', 'a', '--max-semi-space-size=4', '--import=b', '-r', 'c', '--liftoff-only']), [
    '--max-semi-space-size=4',
    '--liftoff-only',
  ])
})
