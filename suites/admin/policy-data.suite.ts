// Policy data (area A): latest, by id, errors; with writes: set (twice), read back, invalid data.
// Writes re-set the data that was already the latest, so the policy in force does not change.
import {
  check,
  mas,
  memo,
  skip,
  requireMasFeature,
  expectOk,
  expectMasError,
  shown,
  setDefaultRule,
  underDeviation,
  MAS_API,
  UNKNOWN_ULID,
  type Test,
} from '../lib/suite.ts'
import type { MasItem } from './listing/walk.ts'

setDefaultRule('spec/interface.md, Endpoints > Area A (policy-data); reference/mas-admin-api.md §1.8')

const base = `${MAS_API}/policy-data`
// Releases whose GET /policy-data/{id} answers the latest record whatever the id (lib/data/deviations.json).
const GET_LATEST = 'policy-data-get-returns-latest'
const SINGLE = 'admin/policy-data#Single'

async function gate(t: Test): Promise<void> {
  await requireMasFeature(t, 'policy-data')
}

/** The latest record before any write of this file: its body, or null when there is none (404). */
function latestBefore(): Promise<{ data: MasItem } | null | string> {
  return memo('policy:latest', async () => {
    const res = await mas('GET', '/policy-data/latest')
    if (res.status === 404) return null
    if (res.status !== 200) return `GET ${base}/latest answered ${res.status}`
    return res.json as { data: MasItem }
  })
}

check('policy-data: GET latest → 200 with the latest record, or 404 when there is none', ['mas'], async (t) => {
  await gate(t)
  const res = await mas('GET', '/policy-data/latest')
  if (res.status === 404) {
    expectMasError(t, res, 404, `GET ${base}/latest (no policy data)`, [/^No policy data found$/])
    return
  }
  const body = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `GET ${base}/latest`, { schema: SINGLE })
  if (!body) return
  t.equal(body.data.type, 'policy-data', 'type is policy-data')
  t.equal(body.links.self, `${base}/${body.data.id}`, 'links.self is the canonical path of the record, not /latest')
  t.equal(body.data.links.self, `${base}/${body.data.id}`, 'data.links.self is the canonical path')
})

check('policy-data: GET by id returns the latest record', ['mas'], async (t) => {
  await gate(t)
  const latest = await latestBefore()
  if (typeof latest === 'string') skip(latest)
  if (latest === null) skip('the target has no policy data')
  const res = await mas('GET', `/policy-data/${latest.data.id}`)
  const body = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `GET ${base}/${latest.data.id}`, { schema: SINGLE })
  if (!body) return
  t.same(body.data, latest.data, 'the record read by id equals latest')
  t.equal(body.links.self, `${base}/${latest.data.id}`, 'links.self is the requested path')
})

check('policy-data: GET an unknown id → 404 naming it', ['mas'], async (t) => {
  await gate(t)
  const res = await mas('GET', `/policy-data/${UNKNOWN_ULID}`)
  await underDeviation(GET_LATEST, () => void expectMasError(t, res, 404, `GET ${base}/${UNKNOWN_ULID}`, [/policy data/i, UNKNOWN_ULID]))
})

check('policy-data: GET a malformed id → 400', ['mas'], async (t) => {
  await gate(t)
  expectMasError(t, await mas('GET', '/policy-data/not-a-ulid'), 400, `GET ${base}/not-a-ulid`, ['ULID'])
})

/** Data to set: the current latest's data (so nothing changes in force), or an empty object. */
async function dataToSet(): Promise<unknown> {
  const latest = await latestBefore()
  if (typeof latest === 'string') skip(latest)
  return latest === null ? {} : latest.data.attributes.data
}

check('policy-data: set → 201, and latest and get by id return it', ['mas', 'writes'], async (t) => {
  await gate(t)
  const data = await dataToSet()
  const res = await mas('POST', '/policy-data', { body: { data } })
  const created = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `POST ${base}`, { status: 201, schema: SINGLE })
  if (!created) return
  t.same(created.data.attributes.data, data, 'the record holds the data sent')
  const latest = expectOk<{ data: MasItem }>(t, await mas('GET', '/policy-data/latest'), `GET ${base}/latest`, { schema: SINGLE })
  if (latest) t.same(latest.data, created.data, 'latest is the new record')
  const byId = expectOk<{ data: MasItem }>(t, await mas('GET', `/policy-data/${created.data.id}`), `GET ${base}/${created.data.id}`, {
    schema: SINGLE,
  })
  if (byId) t.same(byId.data, created.data, 'get by id returns the new record')
})

check('policy-data: of two records set in turn, latest is the newer and the older stays readable', ['mas', 'writes'], async (t) => {
  await gate(t)
  const data = await dataToSet()
  const one = expectOk<{ data: MasItem }>(t, await mas('POST', '/policy-data', { body: { data } }), 'first POST', {
    status: 201,
    schema: SINGLE,
  })
  const two = expectOk<{ data: MasItem }>(t, await mas('POST', '/policy-data', { body: { data } }), 'second POST', {
    status: 201,
    schema: SINGLE,
  })
  if (!one || !two) return
  t.ok(two.data.id > one.data.id, 'the second record has the later id', { first: one.data.id, second: two.data.id })
  const latest = expectOk<{ data: MasItem }>(t, await mas('GET', '/policy-data/latest'), `GET ${base}/latest`)
  if (latest) t.equal(latest.data.id, two.data.id, 'latest is the second record')
  const older = expectOk<{ data: MasItem }>(t, await mas('GET', `/policy-data/${one.data.id}`), `GET ${base}/${one.data.id}`)
  if (older)
    await underDeviation(GET_LATEST, () => void t.same(older.data, one.data, 'the first record is unchanged and readable by its id'))
})

check('policy-data: invalid policy data → 400, and nothing is stored', ['mas', 'writes'], async (t) => {
  await gate(t)
  const before = await mas('GET', '/policy-data/latest')
  // A number cannot be merged into the configured data (an object): the service rejects it.
  const res = await mas('POST', '/policy-data', { body: { data: 42 } })
  const titles = expectMasError(t, res, 400, `POST ${base} with data 42`, [/polic/i])
  t.ok(titles.length >= 1, 'at least one title', { titles })
  const after = await mas('GET', '/policy-data/latest')
  t.equal(after.status, before.status, 'latest answers as before')
  t.same(
    (after.json as { data?: MasItem } | undefined)?.data?.id,
    (before.json as { data?: MasItem } | undefined)?.data?.id,
    'latest is the same record as before',
    { before: shown(before.json), after: shown(after.json) },
  )
})
