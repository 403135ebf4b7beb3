// Delegated tokens (area B with the auth service, from Synapse 1.86.0): a homeserver that delegates
// authentication to the auth service checks every token of its admin and client APIs there. A token the
// auth service issued with the client-server API scope and urn:synapse:admin:* reads the homeserver admin
// API (how an admin UI signed in through OpenID Connect reads event reports); without the admin scope it
// is a plain user (403); without the API scope it is refused (401). The tokens are personal sessions of an
// active admin of the auth service, made for the check and revoked after it: needs both targets,
// --allow-writes, and a homeserver that says it delegates (its auth_issuer or auth_metadata answers).
import type { Test } from '../lib/check.ts'
import {
  check,
  cleanup,
  client,
  hs,
  hsClient,
  hsRaw,
  mas,
  memo,
  skip,
  expectOk,
  expectHsError,
  requireMasFeature,
  requireSynapseFeature,
  target,
  setDefaultRule,
} from '../lib/suite.ts'

setDefaultRule(
  'Synapse docs: delegating authentication to the Matrix Authentication Service (synapse/api/auth/mas.py get_user_by_access_token, is_server_admin)',
)

const API = 'urn:matrix:org.matrix.msc2967.client:api:*'
const ADMIN = 'urn:synapse:admin:*'
const PATH = `${target.hs?.prefix ?? '/_synapse'}/admin/v1`

/** Whether the homeserver says it delegates authentication (the unstable issuer call, or the metadata). */
const delegates = (): Promise<boolean> =>
  memo('hs-delegates', async () => {
    for (const p of ['unstable/org.matrix.msc2965/auth_issuer', 'v1/auth_metadata']) {
      const res = await hsRaw('GET', `${target.hs?.clientPrefix ?? '/_matrix'}/client/${p}`, { as: 'none' })
      if (res.status === 200) return true
    }
    return false
  })

/** An active admin of the auth service to make personal sessions for. */
const actor = (): Promise<string | undefined> =>
  memo('delegated:actor', async () => {
    const res = await mas('GET', '/users', { query: { 'filter[admin]': 'true', 'filter[status]': 'active', 'page[first]': 1 } })
    return (res.json as { data?: { id: string }[] } | undefined)?.data?.[0]?.id
  })

async function tokenWith(t: Test, scope: string): Promise<string | undefined> {
  await requireSynapseFeature(t, 'delegated-auth')
  await requireMasFeature(t, 'personal-sessions')
  if (!(await delegates())) skip('the homeserver does not say it delegates authentication (neither auth_issuer nor auth_metadata answers)')
  const who = await actor()
  if (!who) skip('the auth service lists no active admin to make a personal session for')
  const res = await mas('POST', '/personal-sessions', {
    body: { actor_user_id: who, human_name: `admin-conformance delegated ${target.runId}`, scope, expires_in: 300 },
  })
  const created = (res.json as { data?: { id: string; attributes: { access_token?: string } } } | undefined)?.data
  const token = created?.attributes.access_token
  if (typeof token === 'string') client.addSecret(token)
  if (res.status !== 201 || !created || typeof token !== 'string') {
    t.fail(`a personal session with scope ${scope} → 201 with an access token`, { status: res.status })
    return undefined
  }
  cleanup(async () => {
    await mas('POST', `/personal-sessions/${created.id}/revoke`)
  })
  return token
}

check(`delegated: an auth-service token with ${ADMIN} reads the homeserver admin API`, ['mas', 'hs', 'writes'], async (t) => {
  const token = await tokenWith(t, `${API} ${ADMIN}`)
  if (!token) return
  const res = await hs('GET', '/event_reports', { query: { limit: 1 }, as: { token } })
  expectOk(t, res, `GET ${PATH}/event_reports?limit=1 with the token`, { schema: 'homeserver/event-report#List' })
})

check(
  `delegated: without ${ADMIN} the token is a plain user → 403 M_FORBIDDEN on the admin API, 200 on whoami`,
  ['mas', 'hs', 'writes'],
  async (t) => {
    const token = await tokenWith(t, API)
    if (!token) return
    expectHsError(
      t,
      await hs('GET', '/event_reports', { query: { limit: 1 }, as: { token } }),
      403,
      'M_FORBIDDEN',
      `GET ${PATH}/event_reports with a token without ${ADMIN}`,
      'You are not a server admin',
    )
    expectOk(t, await hsClient('GET', '/account/whoami', { as: { token } }), 'GET whoami with the token')
  },
)

check('delegated: without the client-server API scope → 401 M_UNKNOWN_TOKEN', ['mas', 'hs', 'writes'], async (t) => {
  const token = await tokenWith(t, ADMIN)
  if (!token) return
  expectHsError(
    t,
    await hs('GET', '/event_reports', { query: { limit: 1 }, as: { token } }),
    401,
    'M_UNKNOWN_TOKEN',
    `GET ${PATH}/event_reports with a token without ${API}`,
    "Token doesn't grant access to the Matrix C-S API",
  )
})
