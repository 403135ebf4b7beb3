// Authentication of the homeserver admin API (area B): missing, unknown and non-admin tokens get the
// documented statuses and bodies on every event-report endpoint, before any parameter is validated.
import { check, hs, expectHsError, expectOk, target, hsFeature, setDefaultRule } from '../lib/suite.ts'
import { expectUnrouted } from './reports.ts'

setDefaultRule('spec/interface.md, Authentication; reference/synapse-admin-api.md §1.2 (auth before parameters)')

const PATH = `${target.hs?.prefix ?? '/_synapse'}/admin/v1/event_reports`
const UNKNOWN_TOKEN = 'syt_YWRtaW4tY29uZm9ybWFuY2U_' + 'x'.repeat(20) + '_0AbCdE'
const READS = ['/event_reports', '/event_reports/1']

check('auth: no token → 401 M_MISSING_TOKEN on the listing and single report', ['hs-url'], async (t) => {
  for (const p of READS)
    expectHsError(t, await hs('GET', p, { as: 'none' }), 401, 'M_MISSING_TOKEN', `GET ${target.hs!.prefix}/admin/v1${p} without a token`)
})

check('auth: an unknown token → 401 M_UNKNOWN_TOKEN with soft_logout false', ['hs-url'], async (t) => {
  for (const p of READS) {
    const res = await hs('GET', p, { as: { token: UNKNOWN_TOKEN } })
    expectHsError(t, res, 401, 'M_UNKNOWN_TOKEN', `GET ${target.hs!.prefix}/admin/v1${p} with an unknown token`)
    t.equal(
      (res.json as { soft_logout?: unknown } | undefined)?.soft_logout,
      false,
      `GET ${target.hs!.prefix}/admin/v1${p}: soft_logout is false`,
    )
  }
})

check('auth: a non-admin token → 403 M_FORBIDDEN', ['hs-user'], async (t) => {
  for (const p of READS)
    expectHsError(
      t,
      await hs('GET', p, { as: 'user' }),
      403,
      'M_FORBIDDEN',
      `GET ${target.hs!.prefix}/admin/v1${p} as a non-admin`,
      'You are not a server admin',
    )
})

check('auth: authentication is checked before parameters', ['hs-url'], async (t) => {
  expectHsError(
    t,
    await hs('GET', '/event_reports', { as: 'none', query: { dir: 'bogus' } }),
    401,
    'M_MISSING_TOKEN',
    'no token and dir=bogus',
  )
  expectHsError(t, await hs('GET', '/event_reports/abcdef', { as: 'none' }), 401, 'M_MISSING_TOKEN', 'no token and a malformed report id')
})

check('auth: the admin check comes before parameters', ['hs-user'], async (t) => {
  expectHsError(
    t,
    await hs('GET', '/event_reports', { as: 'user', query: { limit: '-5' } }),
    403,
    'M_FORBIDDEN',
    'non-admin token and limit=-5',
  )
})

// The next two send the admin token in the URL, which proxies and load balancers log: suites/lib/requests.ts
// skips them (naming --allow-token-in-url) unless the user opted in; against the bundled mock they run.
check('auth: the admin token is accepted as ?access_token=', ['hs'], async (t) => {
  expectOk(t, await hs('GET', '/event_reports', { tokenInQuery: true, query: { limit: 1 } }), `GET ${PATH}?access_token=…`, {
    schema: 'homeserver/event-report#List',
  })
})

check('auth: a token in both the header and the query → 401 M_MISSING_TOKEN', ['hs'], async (t) => {
  const token = target.hs!.adminToken!
  const res = await hs('GET', '/event_reports', { query: { access_token: token } })
  expectHsError(t, res, 401, 'M_MISSING_TOKEN', 'Authorization header and access_token together')
})

check('auth: delete refuses a missing or non-admin token', ['hs-url', 'writes'], async (t) => {
  if (!(await hsFeature('event-report-delete'))) {
    // Before v1.79.0 DELETE is unrouted, and unrouted requests are answered before authentication.
    await expectUnrouted(t, await hs('DELETE', '/event_reports/1', { as: 'none' }), 'GET', `DELETE ${PATH}/1 without a token`)
    if (target.hs?.userToken)
      await expectUnrouted(t, await hs('DELETE', '/event_reports/1', { as: 'user' }), 'GET', `DELETE ${PATH}/1 as a non-admin`)
    return
  }
  expectHsError(t, await hs('DELETE', '/event_reports/1', { as: 'none' }), 401, 'M_MISSING_TOKEN', `DELETE ${PATH}/1 without a token`)
  if (target.hs?.userToken)
    expectHsError(t, await hs('DELETE', '/event_reports/1', { as: 'user' }), 403, 'M_FORBIDDEN', `DELETE ${PATH}/1 as a non-admin`)
  else t.pass('non-admin delete', { skip: 'needs a non-admin homeserver token (--hs-user-token or HS_USER_TOKEN)' })
})
