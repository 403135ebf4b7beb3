// The seed is public (default 1): the seeded homeserver users' tokens mix in a secret of each start,
// unless --fixed-tokens asks for tokens that follow the seed alone. Everything else stays the same.
import t from 'tap'
import { seedHomeserver } from '../../../mock/seed/homeserver/index.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import { run } from '../../../scripts/mock/main.ts'

const base = { reports: 40, hsAdminToken: 'syt_admin', hsUserToken: 'syt_user' }
const seeded = (over: Parameters<typeof mockOptions>[0] = {}) => {
  const store = seedHomeserver(mockOptions({ ...base, ...over }, {}))
  const people = store.allTokens().filter(([token]) => token !== base.hsAdminToken && token !== base.hsUserToken)
  return { store, people }
}

t.test("seeded users' tokens are not the seed's alone", async (t) => {
  const a = seeded()
  const b = seeded()
  t.ok(a.people.length >= 8, `${a.people.length} seeded users with tokens`)
  t.same(
    a.people.map(([, s]) => s),
    b.people.map(([, s]) => s),
    'the same users and devices',
  )
  const tokensA = new Set(a.people.map(([token]) => token))
  t.ok(
    b.people.every(([token]) => !tokensA.has(token)),
    'other tokens at another start',
  )
  for (const [token] of a.people) t.match(token, /^syt_[A-Za-z0-9_-]+_[A-Za-z0-9]{20}_[A-Za-z0-9]{6}$/, 'the real format')
})

t.test('--fixed-tokens: the same tokens at every start', async (t) => {
  const a = seeded({ tokenSecret: undefined })
  const b = seeded({ tokenSecret: undefined })
  t.same(a.people, b.people, 'same seed, same tokens')
  t.notSame(
    seeded({ tokenSecret: undefined, seed: 2 }).people.map(([x]) => x),
    a.people.map(([x]) => x),
    'another seed, other tokens',
  )
  const io = { stdout: '', stderr: '', out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s) }
  let stop!: () => void
  const stopped = new Promise<void>((r) => (stop = r))
  const done = run(['--port', '0', '--quiet', '--sessions', '3', '--reports', '1', '--log-file', 'none', '--fixed-tokens'], io, stopped)
  for (let i = 0; i < 100 && !io.stdout; i++) await new Promise((r) => setTimeout(r, 50))
  t.match(io.stdout, /^http:\/\/127\.0\.0\.1:\d+\n$/, 'the flag is taken')
  stop()
  t.equal(await done, 0)
})
