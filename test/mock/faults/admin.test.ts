// Each area A fault, switched on through the control API, shows its bug; switched off, the mock is
// right again. (Whether the conformance suites catch them is the harness test's job.)
import t from 'tap'
import { adminFaults } from '../../../mock/faults/admin.ts'
import { API, startTestMock, titles } from '../admin/helpers.ts'

// Interface-faithful (no release deviations), so that a fault that injects one shows against a clean mock.
const tm = await startTestMock(t, { seed: 8, sessions: 150, deviations: false })
const mas = tm.world().mas
const C = `${API}/compat-sessions`
const setFaults = async (faults: string[]) =>
  (await tm.req('PUT', '/_mock/faults', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ faults }) })).status ===
  200
const ids = () => mas.compat.all().map((s) => s.id)
const activeCompat = () => mas.compat.all().find((s) => s.finishedAt === null)!
const jobCount = async () => (await tm.req('GET', '/_mock/jobs')).body.jobs.length

/** name → a check that is true when the mock shows the bug */
const symptoms: Record<string, () => Promise<boolean>> = {
  'pagination-drop-next-link': async () => !('next' in (await tm.get(C)).body.links),
  'pagination-off-by-one': async () => (await tm.get(`${C}?page[after]=${ids()[3]}`)).body.data[0].id === ids()[3],
  'pagination-count-ignores-filters': async () => (await tm.get(`${C}?filter[status]=active`)).body.meta.count === ids().length,
  'pagination-prev-on-forward': async () => 'prev' in (await tm.get(`${C}?page[after]=${ids()[3]}`)).body.links,
  'pagination-last-wrong-order': async () => (await tm.get(`${C}?page[last]=3`)).body.data[0].id === ids()[ids().length - 1],
  'pagination-first-and-last-accepted': async () => (await tm.get(`${C}?page[first]=2&page[last]=2`)).status === 200,
  'pagination-zero-page-accepted': async () => (await tm.get(`${C}?page[first]=0`)).status === 200,
  'pagination-bad-cursor-500': async () => (await tm.get(`${C}?page[after]=nope`)).status === 500,
  'links-self-wrong-order': async () =>
    (await tm.get(`${C}?filter[status]=active&page[first]=5`)).body.links.self.includes('?page[first]=5&'),
  'count-only-includes-data': async () => 'data' in (await tm.get(`${C}?count=only`)).body,
  'item-cursor-missing': async () => !('meta' in (await tm.get(C)).body.data[0]),
  'filter-status-inverted': async () =>
    (await tm.get(`${C}?filter[status]=active`)).body.data.every((d: any) => d.attributes.finished_at !== null),
  'filter-client-only-first': async () => {
    const [a, b] = [...new Set(mas.oauth2.all().map((s) => s.clientId))]
    const both = (await tm.get(`${API}/oauth2-sessions?filter[client]=${a}&filter[client]=${b}&count=only`)).body.meta.count
    return both === mas.oauth2.all().filter((s) => s.clientId === a).length
  },
  'filter-scope-any': async () => {
    const n = (await tm.get(`${API}/oauth2-sessions?filter[scope]=openid&filter[scope]=urn:mas:admin&count=only`)).body.meta.count
    return n > mas.oauth2.all().filter((s) => s.scope.split(' ').includes('openid') && s.scope.split(' ').includes('urn:mas:admin')).length
  },
  'filter-unknown-user-empty': async () => (await tm.get(`${C}?filter[user]=01FSHN9AG0MZAA6S4AF7CTV32E`)).status === 200,
  'filter-created-after-inclusive': async () => {
    const s = mas.compat.all()[5]!
    const created = (await tm.get(`${C}/${s.id}`)).body.data.attributes.created_at
    return (await tm.get(`${C}?filter[created-after]=${created}&page[first]=1`)).body.data[0].id === s.id
  },
  'finish-twice-200': async () => {
    const s = mas.compat.all().find((x) => x.finishedAt !== null)!
    return (await tm.post(`${C}/${s.id}/finish`)).status === 200
  },
  'finish-no-sync-job': async () => {
    const before = await jobCount()
    await tm.post(`${C}/${activeCompat().id}/finish`)
    return (await jobCount()) === before
  },
  'revoke-twice-200': async () =>
    (await tm.post(`${API}/personal-sessions/${mas.personal.all().find((s) => s.revokedAt !== null)!.id}/revoke`)).status === 200,
  'personal-revoke-keeps-expires': async () => {
    const s = mas.personal.all().find((x) => x.revokedAt === null && x.tokenExpiresAt !== null)!
    return (await tm.post(`${API}/personal-sessions/${s.id}/revoke`)).body.data.attributes.expires_at !== null
  },
  'regenerate-keeps-old-token': async () => {
    const c = await tm.post(`${API}/personal-sessions`, { actor_user_id: mas.users.all()[0]!.id, human_name: 'f', scope: 'urn:mas:admin' })
    await tm.post(`${API}/personal-sessions/${c.body.data.id}/regenerate`, {})
    return (await tm.get(`${API}/version`, c.body.data.attributes.access_token)).status === 200
  },
  'personal-access-token-in-get': async () =>
    'access_token' in (await tm.get(`${API}/personal-sessions/${mas.personal.all()[0]!.id}`)).body.data.attributes,
  'policy-latest-oldest': async () => (await tm.get(`${API}/policy-data/latest`)).body.data.id === mas.policyData.first()!.id,
  'policy-get-by-id-returns-latest': async () =>
    (await tm.get(`${API}/policy-data/${mas.policyData.first()!.id}`)).body.data.id === mas.policyData.last()!.id,
  'error-envelope-flat': async () => typeof (await tm.get(`${C}/01FSHN9AG0MZAA6S4AF7CTV32E`)).body.error === 'string',
  'error-title-missing-id': async () =>
    !titles((await tm.get(`${C}/01FSHN9AG0MZAA6S4AF7CTV32E`)).body)[0]!.includes('01FSHN9AG0MZAA6S4AF7CTV32E'),
  'auth-missing-scope-200': async () => (await tm.get(`${API}/version`, tm.user)).status === 200,
  'auth-missing-header-401': async () => (await tm.get(`${API}/version`, null)).status === 401,
}

t.test('every admin fault has a symptom check', async (t) => {
  t.same(Object.keys(symptoms).sort(), adminFaults.map((f) => f.name).sort())
  t.ok(adminFaults.length >= 18)
})

for (const f of adminFaults) {
  t.test(f.name, async (t) => {
    const check = symptoms[f.name]!
    t.ok(await setFaults([]))
    t.notOk(await check(), 'clean: no symptom')
    t.ok(await setFaults([f.name]))
    t.ok(await check(), `faulty: ${f.description}`)
    t.ok(await setFaults([]))
  })
}
