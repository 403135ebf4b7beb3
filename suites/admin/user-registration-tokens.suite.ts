// User registration tokens (area A, beyond the interface document; v1.0.0+): listing, pagination,
// the four filters against the full set (valid and expired computed here from the attributes and the
// time of the request), lookups, errors; with writes: a token of this run is added, updated (expiry
// set and cleared, usage limit), revoked, revoked again (400), unrevoked, unrevoked again (400). It is
// left revoked at the end (tokens cannot be deleted).
import { skip, memo, cleanup, leftover, target, mas, expectOk, expectMasError, expectStatus, MAS_API, UNKNOWN_ULID } from '../lib/suite.ts'
import { familyCheck, type FamilySpec, type MasItem } from './listing/walk.ts'
import { filterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'

const spec: FamilySpec = {
  family: 'user-registration-tokens',
  // the service's spelling, with an underscore
  type: 'user-registration_token',
  schema: 'admin/user-registration-token',
  notFoundTitle: (id) => [`Registration token with ID ${id} not found`],
  feature: 'user-registration-tokens',
}
const f = 'user-registration-tokens'
const base = `${MAS_API}/${f}`
type Single = { data: MasItem; links: { self: string } }

listingChecks(spec)

const at = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : NaN)
/** computed at the time the check runs; tokens expiring within a minute of it are left out by the checks */
const FACTS: Record<string, (i: MasItem, now: number) => boolean> = {
  used: (i) => Number(i.attributes.times_used) > 0,
  revoked: (i) => i.attributes.revoked_at !== null,
  expired: (i, now) => i.attributes.expires_at !== null && at(i.attributes.expires_at) < now,
  valid: (i, now) =>
    (i.attributes.usage_limit === null || Number(i.attributes.times_used) < Number(i.attributes.usage_limit)) &&
    i.attributes.revoked_at === null &&
    (i.attributes.expires_at === null || at(i.attributes.expires_at) >= now),
}

for (const [key, fact] of Object.entries(FACTS)) {
  for (const want of [true, false]) {
    filterCheck(spec, `filter[${key}]=${want} matches the full set filtered client-side`, (items) => {
      const now = Date.now()
      const near = items.filter((i) => Math.abs(at(i.attributes.expires_at) - now) < 60_000)
      if (near.length) return `a token expires within a minute of now (${near[0]!.id}): the expiry filters would race it`
      const expect = (i: MasItem) => fact(i, now) === want
      return items.some(expect)
        ? { filters: { [`filter[${key}]`]: String(want) }, expect }
        : `no token on the target is ${want ? '' : 'not '}${key}`
    })
  }
}

familyCheck(spec, 'the valid attribute agrees with usage, revocation and expiry', ['mas'], async (t) => {
  const res = await mas('GET', `/${f}`, { query: { 'page[first]': 100 } })
  const page = expectOk<{ data?: MasItem[] }>(t, res, `GET ${base}?page[first]=100`)
  const now = Date.now()
  const bad = (page?.data ?? []).filter(
    (i) => Math.abs(at(i.attributes.expires_at) - now) > 60_000 && i.attributes.valid !== FACTS.valid!(i, now),
  )
  t.same(
    bad.map((i) => i.id),
    [],
    'valid is under the limit, not revoked and not expired on every token',
  )
})

badFilterCheck(spec, 'an invalid filter[valid] value', { 'filter[valid]': 'maybe' }, ['Invalid filter parameters'])

// --- writes

const text = () => `ac-${String(target.runId).replace(/[^A-Za-z0-9]/g, '')}`.slice(0, 60)

function created(): Promise<{ id: string } | string> {
  return memo('tokens:created', async () => {
    const res = await mas('POST', `/${f}`, { body: { token: text(), usage_limit: 1 } })
    if (res.status !== 201) return `adding a token answered ${res.status}`
    const id = String((res.json as Single).data.id)
    cleanup(async () => {
      await mas('POST', `/${f}/${id}/revoke`)
    })
    leftover({
      target: 'mas',
      kind: 'user-registration-token',
      id,
      reason: 'added by the registration-token checks and left revoked; the admin API cannot delete a token',
    })
    return { id }
  })
}

familyCheck(spec, 'add a token → 201 valid and unused; the same text again → 409', ['mas', 'writes'], async (t) => {
  const c = await created()
  if (typeof c === 'string') skip(c)
  const body = expectOk<Single>(t, await mas('GET', `/${f}/${c.id}`), `GET ${base}/${c.id}`, { schema: `${spec.schema}#Single` })
  if (body)
    t.same(
      [body.data.attributes.token, body.data.attributes.valid, body.data.attributes.times_used, body.data.attributes.usage_limit],
      [text(), true, 0, 1],
      'as sent, valid, unused',
    )
  expectMasError(t, await mas('POST', `/${f}`, { body: { token: text() } }), 409, 'the same token text', [
    'A registration token with the same token already exists',
  ])
})

familyCheck(
  spec,
  'update: a past expiry makes it invalid, null clears it, usage_limit changes and absent keys are kept',
  ['mas', 'writes'],
  async (t) => {
    const c = await created()
    if (typeof c === 'string') skip(c)
    const past = expectOk<Single>(
      t,
      await mas('PUT', `/${f}/${c.id}`, { body: { expires_at: '2020-01-01T00:00:00Z' } }),
      'PUT a past expiry',
      { schema: `${spec.schema}#Single` },
    )
    t.same([past?.data.attributes.valid, past?.data.attributes.usage_limit], [false, 1], 'expired: not valid; usage_limit kept')
    const limit = expectOk<Single>(t, await mas('PUT', `/${f}/${c.id}`, { body: { usage_limit: 7 } }), 'PUT a usage limit')
    t.same(
      [limit?.data.attributes.usage_limit, limit?.data.attributes.expires_at],
      [7, '2020-01-01T00:00:00Z'],
      'usage_limit set; expires_at kept',
    )
    const cleared = expectOk<Single>(t, await mas('PUT', `/${f}/${c.id}`, { body: { expires_at: null } }), 'PUT expires_at null')
    t.same([cleared?.data.attributes.expires_at, cleared?.data.attributes.valid], [null, true], 'expiry cleared: valid again')
    expectMasError(t, await mas('PUT', `/${f}/${UNKNOWN_ULID}`, { body: {} }), 404, 'PUT an unknown token', [
      `Registration token with ID ${UNKNOWN_ULID} not found`,
    ])
  },
)

familyCheck(spec, 'revoke → 200; again → 400; unrevoke → 200; again → 400; links.self is the action path', ['mas', 'writes'], async (t) => {
  const c = await created()
  if (typeof c === 'string') skip(c)
  const rev = expectOk<Single>(t, await mas('POST', `/${f}/${c.id}/revoke`), 'revoke', { schema: `${spec.schema}#Single` })
  t.same([rev?.links.self, rev?.data.attributes.valid, typeof rev?.data.attributes.revoked_at], [`${base}/${c.id}/revoke`, false, 'string'])
  expectMasError(t, await mas('POST', `/${f}/${c.id}/revoke`), 400, 'revoke again', [
    `Registration token with ID ${c.id} is already revoked`,
  ])
  const un = expectOk<Single>(t, await mas('POST', `/${f}/${c.id}/unrevoke`), 'unrevoke', { schema: `${spec.schema}#Single` })
  t.same([un?.links.self, un?.data.attributes.revoked_at], [`${base}/${c.id}/unrevoke`, null])
  expectMasError(t, await mas('POST', `/${f}/${c.id}/unrevoke`), 400, 'unrevoke again', [
    `Registration token with ID ${c.id} is not revoked`,
  ])
  expectMasError(t, await mas('POST', `/${f}/${UNKNOWN_ULID}/revoke`), 404, 'revoke an unknown token', [
    `Registration token with ID ${UNKNOWN_ULID} not found`,
  ])
  expectStatus(t, await mas('POST', `/${f}/${UNKNOWN_ULID}/unrevoke`), 404, 'unrevoke an unknown token')
})
