// User email addresses (area A, beyond the interface document): listing, pagination, both filters
// against the full set, lookups, errors; with writes: add (every refusal in the service's order),
// read back, delete, and the address gone. The address added here is deleted by the file itself (or
// at its end if a check stops early).
import { skip, memo, cleanup, target, mas, expectOk, expectMasError, expectStatus, MAS_API, UNKNOWN_ULID } from '../lib/suite.ts'
import { familyCheck, allItems, type FamilySpec, type MasItem } from './listing/walk.ts'
import { filterCheck, unknownFilterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'
import { idFilterCheck } from './session-checks.ts'

const spec: FamilySpec = {
  family: 'user-emails',
  type: 'user-email',
  schema: 'admin/user-email',
  notFoundTitle: (id) => [/user email id/i, id],
}
const f = 'user-emails'
const base = `${MAS_API}/${f}`
type Single = { data: MasItem; links: { self: string } }

listingChecks(spec)

// --- filters

idFilterCheck(spec, 'filter[user]', 'user_id', 'no address on the target')

filterCheck(spec, 'filter[email] matches the whole address case-insensitively', (items) => {
  // an address with letters, asked for in the other case: a case-sensitive comparison finds nothing
  const pick = items.find((i) => /[a-z]/.test(String(i.attributes.email))) ?? items.find((i) => /[A-Z]/.test(String(i.attributes.email)))
  if (!pick) return 'no address with letters'
  const email = String(pick.attributes.email)
  const asked = email === email.toLowerCase() ? email.toUpperCase() : email.toLowerCase()
  return {
    filters: { 'filter[email]': asked },
    expect: (i) => String(i.attributes.email).toLowerCase() === asked.toLowerCase(),
    describe: `asked as ${asked}`,
  }
})

// --- errors of the listing

unknownFilterCheck(spec, 'filter[user]', 'user')
badFilterCheck(spec, 'a malformed filter[user]', { 'filter[user]': 'not-a-ulid' }, ['Invalid filter parameters'])

// --- writes: one address added to the user of the newest listed address, then deleted

const address = () =>
  `admin-conformance-${String(target.runId)
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')}@example.invalid`

function added(): Promise<{ id: string; userId: string; email: string } | string> {
  return memo('user-emails:added', async () => {
    const owner = (await allItems(spec, { allowEmpty: true })).at(-1)?.attributes.user_id as string | undefined
    if (!owner) return 'no address on the target to take a user from'
    const email = address()
    const res = await mas('POST', `/${f}`, { body: { user_id: owner, email } })
    if (res.status !== 201) return `adding ${email} answered ${res.status}`
    const id = String((res.json as Single).data.id)
    cleanup(async () => {
      await mas('DELETE', `/${f}/${id}`)
    })
    return { id, userId: owner, email }
  })
}

familyCheck(spec, 'add an address → 201 with links.self canonical, and it reads back and is listed', ['mas', 'writes'], async (t) => {
  const a = await added()
  if (typeof a === 'string') skip(a)
  const res = await mas('GET', `/${f}/${a.id}`)
  const body = expectOk<Single>(t, res, `GET ${base}/${a.id}`, { schema: `${spec.schema}#Single` })
  if (body) t.same([body.data.attributes.email, body.data.attributes.user_id], [a.email, a.userId], 'the address and user as sent')
  const listed = await mas('GET', `/${f}`, { query: { 'filter[email]': a.email } })
  const page = expectOk<{ data?: MasItem[] }>(t, listed, `filter[email]=${a.email}`)
  t.same(
    (page?.data ?? []).map((i) => i.id),
    [a.id],
    'filter[email] lists exactly the new address',
  )
})

familyCheck(
  spec,
  'add refusals in order: unknown user → 404, invalid address → 400, address in use (other case) → 409',
  ['mas', 'writes'],
  async (t) => {
    const a = await added()
    if (typeof a === 'string') skip(a)
    expectMasError(
      t,
      await mas('POST', `/${f}`, { body: { user_id: UNKNOWN_ULID, email: 'not an address' } }),
      404,
      'unknown user (and a bad address)',
      [`User ID ${UNKNOWN_ULID} not found`],
    )
    expectMasError(t, await mas('POST', `/${f}`, { body: { user_id: a.userId, email: 'not an address' } }), 400, 'an invalid address', [
      'Email "not an address" is not valid',
    ])
    const upper = a.email.toUpperCase()
    expectMasError(t, await mas('POST', `/${f}`, { body: { user_id: a.userId, email: upper } }), 409, 'the same address in capitals', [
      `User email "${upper}" already in use`,
    ])
    const missing = await mas('POST', `/${f}`, { body: { user_id: a.userId } })
    expectStatus(t, missing, 422, 'a body without email')
  },
)

familyCheck(spec, 'delete → 204; then get and delete → 404 and the listing no longer has it', ['mas', 'writes'], async (t) => {
  const a = await added()
  if (typeof a === 'string') skip(a)
  const del = await mas('DELETE', `/${f}/${a.id}`)
  expectStatus(t, del, 204, `DELETE ${base}/${a.id}`)
  t.equal(del.text, '', 'no body')
  expectMasError(t, await mas('GET', `/${f}/${a.id}`), 404, 'GET after delete', [`User email ID ${a.id} not found`])
  expectMasError(t, await mas('DELETE', `/${f}/${a.id}`), 404, 'DELETE again', [`User email ID ${a.id} not found`])
  const listed = await mas('GET', `/${f}`, { query: { 'filter[email]': a.email, count: 'only' } })
  t.equal((listed.json as { meta?: { count?: number } } | undefined)?.meta?.count, 0, 'filter[email] counts it no more')
})
