// explore's generator: every operation of the release's tables gets cases, the edges the brief of the
// command names are there, a seed always gives the same cases (and another seed other random ones), a
// release's missing routes get none, and read-only cases never send a mutating request that carries a
// credential or a body.
import t from 'tap'
import { allOperations, generate, operationsAt } from '../../../scripts/explore/generate.ts'
import { caseLine } from '../../../scripts/explore/cases.ts'
import { MUTATING_METHODS } from '../../../lib/http.ts'

const base = { versions: { mas: 'v1.22.0', hs: '1.160.0' }, apis: { mas: true, hs: true }, allowWrites: false, seed: 1, random: 4 }

t.test('every operation of areas A and B at the release has cases', async (t) => {
  const cases = generate(base)
  const ops = operationsAt(base.versions, base.apis)
  t.ok(ops.length >= 50, `${ops.length} operations`)
  const asked = new Set(cases.map((c) => c.operation))
  t.same(
    ops.filter((o) => !asked.has(o.key)).map((o) => o.key),
    [],
    'no operation without a case',
  )
  t.ok(
    ops.some((o) => o.template === '/_synapse/admin/v1/server_version'),
    'server_version is among them',
  )
  const lines = cases.map(caseLine)
  for (const want of [
    'GET /_synapse/admin/v1/event_reports/99999999999999999999999 [admin]',
    'GET /_synapse/admin/v1/event_reports?from=99999999999999999999999 [admin]',
    'GET /api/admin/v1/users?page[first]=0 [admin]',
    'GET /api/admin/v1/users?page[first]=-1 [admin]',
    'GET /api/admin/v1/users?page[first]=4294967296 [admin]',
    'GET /api/admin/v1/users?page[first]=2&page[last]=2 [admin]',
    'GET /api/admin/v1/users/not-a-ulid [admin]',
    'GET /api/admin/v1/users/by-username/%25 [admin]',
    'GET /api/admin/v1/users [none]',
    'GET /api/admin/v1/users [malformed]',
    'GET /api/admin/v1/users [user]',
    'DELETE /api/admin/v1/users [none]',
    'GET /_synapse/admin/v1/event_reports?limit=abc [admin]',
  ])
    t.ok(lines.includes(want), want)
  t.ok(
    cases.some(
      (c) => c.template === '/api/admin/v1/users/{id}' && typeof c.params.id === 'object' && c.params.id.sample === '/api/admin/v1/users',
    ),
    'a real id, sampled from the listing',
  )
  t.ok(
    cases.some((c) => c.kind === 'random'),
    'random combinations are drawn',
  )
})

t.test('a seed gives the same cases; another seed other random combinations', async (t) => {
  const a = generate(base).map(caseLine)
  const b = generate(base).map(caseLine)
  const c = generate({ ...base, seed: 2 }).map(caseLine)
  t.same(a, b, 'same seed, same cases in the same order')
  t.not(JSON.stringify(a), JSON.stringify(c), 'seed 2 draws other combinations')
  t.equal(a.filter((l, i) => l !== c[i]).length > 0, true)
  t.equal(generate({ ...base, random: 0 }).filter((x) => x.kind === 'random').length, 0, '--random 0: none')
})

t.test("a release's missing routes get no case", async (t) => {
  const old = generate({ ...base, versions: { mas: 'v0.14.0', hs: '1.67.0' } })
  t.notOk(
    old.some((c) => c.operation.includes('/user_reports') && c.kind !== 'method'),
    'no user_reports cases before 1.152.0',
  )
  t.notOk(
    old.some((c) => c.operation.includes('/personal-sessions') && c.kind !== 'method'),
    'no personal-session cases before v1.5.0',
  )
  t.ok(
    old.some((c) => c.method === 'GET' && c.template === '/_synapse/admin/v1/user_reports' && c.kind === 'method'),
    'but the path is asked once, as a route the release does not have',
  )
  t.ok(allOperations().length > operationsAt({ mas: 'v0.14.0', hs: '1.67.0' }, base.apis).length)
})

t.test('read-only: a mutating request carries no credential and no body', async (t) => {
  const ro = generate(base).filter((c) => MUTATING_METHODS.has(c.method))
  t.ok(ro.length > 20, `${ro.length} mutating cases`)
  t.same(ro.filter((c) => c.auth !== 'none' || c.body !== undefined).map(caseLine), [])
  const rw = generate({ ...base, allowWrites: true }).filter((c) => MUTATING_METHODS.has(c.method))
  t.ok(
    rw.some((c) => c.auth === 'admin' && c.body !== undefined),
    'with writes allowed: bodies of the wrong shape with the admin token',
  )
})

t.test('a method the real release routes but the model does not model is not sent as one the path lacks', async (t) => {
  const cases = generate({ ...base, versions: { mas: 'v1.22.0', hs: '1.160.0' } }).filter((c) => c.kind === 'method')
  const methods = (template: string) => cases.filter((c) => c.template === template).map((c) => c.method)
  // lib/data/model-gaps.json: Synapse routes both and checks the token first
  t.notOk(methods('/_synapse/admin/v1/rooms/{roomId}').includes('DELETE'), 'no DELETE of a room')
  t.ok(methods('/_synapse/admin/v1/rooms/{roomId}').includes('POST'), 'POST, which Synapse does not route there, is still sent')
  t.notOk(methods('/_synapse/admin/v1/users/{userId}/admin').includes('PUT'), 'no PUT of the admin flag')
  t.ok(methods('/_synapse/admin/v1/users/{userId}/admin').includes('DELETE'), 'DELETE of the admin flag is still sent')
})
