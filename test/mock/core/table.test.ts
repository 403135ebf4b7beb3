// The route tables: every route says its description or why it has none, the version gates decide
// what the router takes and what the document lists, the served document is built from the same
// tables, and the per-area `unrouted` hook answers what no route took.
import t from 'tap'
import { adminTable } from '../../../mock/admin/routes.ts'
import { publicTable } from '../../../mock/auth-service/routes.ts'
import { homeserverTable } from '../../../mock/homeserver/routes.ts'
import { buildOpenApi, endpointsOf } from '../../../mock/site/openapi/index.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import { isDocumented, presentAt, routesAt, templateOf, masGate, synapseGate, type RouteTable } from '../../../mock/core/table.ts'
import { API, startTestMock } from '../admin/helpers.ts'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Router } from '../../../mock/core/router.ts'
import { handle, type Site } from '../../../mock/site/dispatch.ts'
import { buildWorld } from '../../../mock/seed/index.ts'
import { Faults } from '../../../mock/faults/registry.ts'
import { RequestLog } from '../../../mock/core/log.ts'

const options = mockOptions({}, {})
const tables = (): RouteTable[] => [adminTable(), publicTable(options), homeserverTable(options)]

t.test('every route is described or says why not', async (t) => {
  let described = 0
  let reasons = 0
  for (const table of tables()) {
    for (const e of table.routes) {
      if (isDocumented(e.doc)) {
        described++
        t.ok(e.doc.summary.length > 0 && Object.keys(e.doc.responses).length > 0, `${e.method} ${e.pattern}: summary and responses`)
      } else {
        reasons++
        t.ok(e.doc.undocumented.length > 10, `${e.method} ${e.pattern}: a reason`)
      }
    }
  }
  t.equal(
    described,
    23 + 31 + 1 + 4 + 9,
    'the 23 operations of areas A and B, the 31 of the admin API beyond them, the homeserver event context, the user reports (3 admin, 1 client), the rooms admin API (5) and the client API of report consumers and admin tools (4)',
  )
  t.ok(reasons > 20, `${reasons} routes outside the document say why`)
})

t.test('version gates: lib/data rows, bounds, unparsable versions', async (t) => {
  t.same(masGate('personal-sessions'), { since: 'v1.5.0' })
  t.same(synapseGate('event-report-delete'), { since: 'v1.79.0' })
  t.same(synapseGate('legacy-admin-prefixes'), { until: 'v1.24.0' })
  const gate = { since: 'v1.6.0', until: 'v1.9.0' }
  t.notOk(presentAt(gate, 'v1.5.9'))
  t.ok(presentAt(gate, 'v1.6.0'))
  t.ok(presentAt(gate, '1.8.3 (b=develop, abc)'))
  t.notOk(presentAt(gate, 'v1.9.0'))
  t.notOk(presentAt(gate, 'nonsense'), 'an unparsable version is the newest: a removed route is gone')
  t.ok(presentAt({ since: 'v9.0.0' }, 'nonsense'), 'and every route not removed is there')
  t.ok(presentAt(gate, undefined), 'an API without versions has every route')
  t.equal(templateOf('/x/:report_id?/y/:id'), '/x/{report_id}/y/{id}')
})

t.test('the router and the document follow the claimed versions', async (t) => {
  const old = mockOptions({ masVersion: 'v1.4.1', hsVersion: '1.67.0' }, {})
  const at = (table: RouteTable) => routesAt(table, old).map((r) => `${r.method} ${r.pattern}`)
  const admin = at(adminTable())
  t.notOk(
    admin.some((r) => r.includes('/personal-sessions')),
    'no personal sessions before v1.5.0',
  )
  t.ok(admin.includes(`GET ${API}/site-config`), 'site-config since v1.4.0')
  const hs = at(homeserverTable(old))
  t.notOk(hs.includes('DELETE /_synapse/admin/v1/event_reports/:report_id?'), 'no DELETE of a report before v1.79.0')
  t.ok(hs.includes('GET /_synapse/admin/v1/event_reports/:report_id?'))

  const doc = buildOpenApi({ masVersion: 'v1.4.1', hsVersion: '1.67.0' }) as {
    paths: Record<string, Record<string, { 'x-since'?: string }>>
  }
  t.notOk(doc.paths['/api/admin/v1/personal-sessions'], 'the document leaves out what the version lacks')
  t.same(
    Object.keys(doc.paths['/_synapse/admin/v1/event_reports/{report_id}'] ?? {}).filter((k) => k !== 'description'),
    ['get'],
  )
  const newest = buildOpenApi() as typeof doc
  t.equal(newest.paths['/_synapse/admin/v1/event_reports/{report_id}']?.delete?.['x-since'], 'v1.79.0', 'x-since is the gate')
  t.equal(newest.paths['/api/admin/v1/personal-sessions']?.get?.['x-since'], 'v1.5.0', 'from lib/data/mas-features.json')
  t.equal(endpointsOf(tables(), {}, '/_matrix').length, 23 + 31 + 1 + 4 + 9)
  t.notOk(
    hs.some((r) => r.includes('/user_reports') || r.includes('/users/:userId?/report')),
    'no user reports before v1.152.0 (filing: v1.133.0)',
  )
})

t.test('a mock claiming old versions routes accordingly and serves its own document', async (t) => {
  const tm = await startTestMock(t, { masVersion: 'v1.4.1', hsVersion: '1.67.0', sessions: 9, reports: 2 })
  const personal = await tm.get(`${API}/personal-sessions`)
  t.equal(personal.status, 404, 'an unrouted admin path: the HTML 404')
  t.match(personal.headers.get('content-type'), /text\/html/)
  t.equal((await tm.get(`${API}/compat-sessions`)).status, 200)
  const spec = await tm.get('/api/spec.json')
  t.equal(spec.status, 200)
  t.same(
    spec.body,
    buildOpenApi({ serverUrl: tm.url, masVersion: 'v1.4.1', hsVersion: '1.67.0' }),
    'the served document is the tables at the claimed versions',
  )
  const del = await tm.req('DELETE', '/_synapse/admin/v1/event_reports/1')
  t.not(del.status, 200, 'DELETE of a report is not routed at 1.67.0')
  t.ok(del.status === 400 || del.status === 405, `answered by the homeserver's unrouted hook (${del.status})`)
})

t.test("an API's unrouted hook answers what no route took, with the methods the path has", async (t) => {
  const o = mockOptions({ hsVersion: '1.67.0', logFile: null }, {})
  const table = homeserverTable(o)
  const seen: string[] = []
  table.hooks = {
    hs: {
      unrouted: (u) => {
        seen.push(`${u.method} ${u.path} [${u.allowed.join(',')}]`)
        return { status: 400, body: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' } }
      },
    },
  }
  const state = { options: o, world: buildWorld(o), faults: new Faults(), log: new RequestLog(null, o.logFormat), reseed() {} }
  const site: Site = { state, router: new Router().add(routesAt(table, o)), hooks: table.hooks }
  const server = createServer((req, res) => void handle(site, req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const del = await fetch(`${base}/_synapse/admin/v1/event_reports/3`, { method: 'DELETE' })
  t.equal(del.status, 400)
  t.same(await del.json(), { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' })
  t.equal((await fetch(`${base}/_synapse/admin/v1/nothing`)).status, 400)
  t.same(seen, ['DELETE /_synapse/admin/v1/event_reports/3 [GET]', 'GET /_synapse/admin/v1/nothing []'])
  t.equal((await fetch(`${base}/_synapse/admin/v1/server_version`)).status, 200, 'routed requests never reach the hook')
  t.equal(seen.length, 2)
})
