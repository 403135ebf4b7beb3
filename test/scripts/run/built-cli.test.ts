// The run command built once (scripts/built-cli.mjs): rebuilt when any source changes, reused otherwise, and
// the built command behaves as the sources do (the bin falls back to tsx only when the build fails).
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const BUILT_CLI = new URL('../../../scripts/built-cli.mjs', import.meta.url).href
const BIN = fileURLToPath(new URL('../../../bin/admin-conformance.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

interface BuiltCli {
  cacheKey(root?: string): string
  builtRunFile(root?: string, cacheDir?: string): Promise<string>
}
const load = async () => (await import(BUILT_CLI)) as BuiltCli

t.test('the cache key follows every source of the build', async (t) => {
  const { cacheKey } = await load()
  const root = mkdtempSync(path.join(tmpdir(), 'ac-built-cli-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const d of ['scripts/run', 'lib', 'mock/core']) mkdirSync(path.join(root, d), { recursive: true })
  writeFileSync(path.join(root, 'package.json'), '{}')
  writeFileSync(path.join(root, 'scripts/run/index.ts'), 'export const a = 1\n')
  writeFileSync(path.join(root, 'mock/core/server.ts'), 'export const b = 1\n')
  const k1 = cacheKey(root)
  t.equal(cacheKey(root), k1, 'the same sources, the same key')
  writeFileSync(path.join(root, 'mock/core/server.ts'), 'export const b = 2\n')
  const later = new Date(Date.now() + 5000)
  utimesSync(path.join(root, 'mock/core/server.ts'), later, later)
  const k2 = cacheKey(root)
  t.not(k2, k1, 'an edited source changes the key')
  writeFileSync(path.join(root, 'lib/new.ts'), 'export {}\n')
  t.not(cacheKey(root), k2, 'a new source changes the key')
  writeFileSync(path.join(root, 'lib/notes.txt'), 'not a source')
  const k3 = cacheKey(root)
  writeFileSync(path.join(root, 'lib/notes.txt'), 'still not a source, longer')
  t.equal(cacheKey(root), k3, 'files that are no sources do not')
})

t.test('built once, then reused; older builds removed', async (t) => {
  const { builtRunFile } = await load()
  const cache = mkdtempSync(path.join(tmpdir(), 'ac-built-cli-cache-'))
  t.teardown(() => rmSync(cache, { recursive: true, force: true }))
  writeFileSync(path.join(cache, 'run-0123456789abcdef.mjs'), '// an older build')
  const file = await builtRunFile(ROOT, cache)
  t.match(path.basename(file), /^run-[0-9a-f]{16}\.mjs$/)
  const built = statSync(file).mtimeMs
  t.equal(await builtRunFile(ROOT, cache), file, 'the same file the second time')
  t.equal(statSync(file).mtimeMs, built, 'not built again')
  t.same(readdirSync(cache), [path.basename(file)], 'the older build is gone')
  // (loaded by the bin test below: from a folder outside the package its packages do not resolve)
  t.match(readFileSync(file, 'utf8'), /export\s*\{[^}]*\bmain\b/, 'the build exports the run command')
})

t.test('the bin runs the built command, and the sources through tsx when asked', async (t) => {
  for (const env of [{}, { AC_CLI_LOADER: 'tsx' }]) {
    const r = spawnSync(process.execPath, [BIN, 'run', '--help'], { encoding: 'utf8', env: { ...process.env, ...env } })
    t.equal(r.status, 0, `exit 0 (${JSON.stringify(env)})`)
    t.match(r.stdout, /--jobs N/, 'prints the help of run')
    t.notMatch(r.stderr, /could not be built/, 'no fallback note')
  }
})
