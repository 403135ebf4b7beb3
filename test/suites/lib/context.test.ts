// Which target a check runs against (suites/lib/context.ts): with one target the check runs as it is, and
// no AsyncLocalStorage is switched on, since an enabled one puts V8's promise hooks on every promise of
// the process (decision 0016); in the fault matrix each check sees its own target's context.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Runs `body` in a fresh process (no tap, so no hooks of tap's own), with the context module imported as `ctx`. */
function probe(body: string, env: Record<string, string | undefined>): { status: number | null; out: string; err: string } {
  const code = `import * as ctx from './suites/lib/context.ts'
import { executionAsyncId } from 'node:async_hooks'
// with promise hooks on, each continuation runs under its promise's own id
const hooked = async () => { await null; const a = executionAsyncId(); await null; return executionAsyncId() !== a }
${body}`
  const r = spawnSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', AC_TARGETS: undefined, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  })
  return { status: r.status, out: r.stdout.trim(), err: r.stderr }
}

t.test('one target: a check runs without a context store, and no promise hook is switched on', async (t) => {
  const r = probe(
    `const fake = { label: 'x' }
const inside = await ctx.runIn(fake, async () => ({ hooked: await hooked(), matrix: ctx.isMatrix() }))
console.log(JSON.stringify({ before: false, inside, after: await hooked() }))`,
    {},
  )
  t.equal(r.status, 0, r.err)
  t.same(
    JSON.parse(r.out),
    { before: false, inside: { hooked: false, matrix: false }, after: false },
    'no hook before, during or after the check',
  )
})

t.test('the fault matrix: a check sees the context it runs in, across its awaits', async (t) => {
  const r = probe(
    `const a = { label: 'a' }, b = { label: 'b' }
const seen = await Promise.all([a, b].map((c) => ctx.runIn(c, async () => { await new Promise((r) => setTimeout(r, c === a ? 20 : 5)); return ctx.current().label })))
console.log(JSON.stringify(seen))`,
    { AC_TARGETS: '[]' },
  )
  t.equal(r.status, 0, r.err)
  t.same(JSON.parse(r.out), ['a', 'b'], 'each interleaved check kept its own context')
})
