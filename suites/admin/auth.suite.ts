// Authentication of the admin API (area A): a missing, malformed, unknown or non-admin token gets the
// documented status and the error envelope on every endpoint, and authentication comes first.
import { setDefaultRule, check, mas, masFeature, expectMasError, MAS_API, UNKNOWN_ULID } from '../lib/suite.ts'
import type { MasFeature } from '../../lib/versions.ts'

setDefaultRule('spec/interface.md, Authentication; reference/mas-admin-api.md §1.1 and §2.1')

/**
 * Every GET endpoint of area A (lookups with an id that does not exist: authentication comes first),
 * with the feature row of lib/data that says since when a release has it.
 */
const ALL_ENDPOINTS: [string, MasFeature?][] = [
  ['/site-config', 'site-config'],
  ['/version', 'version-endpoint'],
  ['/compat-sessions'],
  [`/compat-sessions/${UNKNOWN_ULID}`],
  ['/oauth2-sessions'],
  [`/oauth2-sessions/${UNKNOWN_ULID}`],
  ['/personal-sessions', 'personal-sessions'],
  [`/personal-sessions/${UNKNOWN_ULID}`, 'personal-sessions'],
  ['/policy-data/latest', 'policy-data'],
  [`/policy-data/${UNKNOWN_ULID}`, 'policy-data'],
]

/** The endpoints the target's release has (an older release lacks some: they would answer 404 unrouted). */
async function endpoints(): Promise<string[]> {
  const out: string[] = []
  for (const [p, feature] of ALL_ENDPOINTS) if (!feature || (await masFeature(feature))) out.push(p)
  return out
}

check('auth: no Authorization header → 400 on every endpoint', ['mas-url'], async (t) => {
  for (const p of await endpoints()) {
    expectMasError(t, await mas('GET', p, { as: 'none' }), 400, `GET ${MAS_API}${p} without a token`, [/authorization header/i])
  }
})

check('auth: a malformed Authorization header → 400', ['mas-url'], async (t) => {
  const basic = await mas('GET', '/version', { as: 'none', headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } })
  expectMasError(t, basic, 400, 'Authorization: Basic', [/authorization header/i])
  const empty = await mas('GET', '/version', { as: 'none', headers: { authorization: 'Bearer' } })
  expectMasError(t, empty, 400, 'Authorization: Bearer without a token', [/authorization header/i])
})

check('auth: an unknown token → 401 on every endpoint', ['mas-url'], async (t) => {
  // Well-formed but never issued.
  const token = 'mat_' + 'A'.repeat(30) + '_0aBcDe'
  for (const p of await endpoints()) {
    expectMasError(t, await mas('GET', p, { as: { token } }), 401, `GET ${MAS_API}${p} with an unknown token`)
  }
})

check('auth: a token without urn:mas:admin → 401 naming the scope on every endpoint', ['mas-user'], async (t) => {
  for (const p of await endpoints()) {
    expectMasError(t, await mas('GET', p, { as: 'user' }), 401, `GET ${MAS_API}${p} with a non-admin token`, ['urn:mas:admin'])
  }
})

check('auth: authentication is checked before parameters', ['mas-url'], async (t) => {
  // Bad pagination would be a 400 "Invalid pagination parameters"; the missing token must win.
  expectMasError(t, await mas('GET', '/compat-sessions', { as: 'none', query: { 'page[first]': 0 } }), 400, 'no token and page[first]=0', [
    /authorization header/i,
  ])
  const token = 'mat_' + 'B'.repeat(30) + '_0aBcDe'
  expectMasError(
    t,
    await mas('GET', '/oauth2-sessions', { as: { token }, query: { 'filter[status]': 'bogus' } }),
    401,
    'unknown token and a bad filter',
  )
  expectMasError(t, await mas('GET', '/compat-sessions/not-a-ulid', { as: 'none' }), 400, 'no token and a malformed id', [
    /authorization header/i,
  ])
})

check('auth: the non-admin token is refused before parameters', ['mas-user'], async (t) => {
  const listing = (await masFeature('personal-sessions')) ? '/personal-sessions' : '/compat-sessions'
  expectMasError(
    t,
    await mas('GET', listing, { as: 'user', query: { 'page[first]': 0 } }),
    401,
    `non-admin token and page[first]=0 on ${listing}`,
    ['urn:mas:admin'],
  )
})

check('auth: mutating endpoints refuse a missing token', ['mas-url', 'writes'], async (t) => {
  const paths = [`/compat-sessions/${UNKNOWN_ULID}/finish`, `/oauth2-sessions/${UNKNOWN_ULID}/finish`]
  if (await masFeature('personal-sessions')) paths.push(`/personal-sessions/${UNKNOWN_ULID}/revoke`)
  for (const p of paths) {
    expectMasError(t, await mas('POST', p, { as: 'none' }), 400, `POST ${MAS_API}${p} without a token`, [/authorization header/i])
  }
  expectMasError(
    t,
    await mas('POST', '/policy-data', { as: 'none', body: { data: {} } }),
    400,
    `POST ${MAS_API}/policy-data without a token`,
    [/authorization header/i],
  )
})
