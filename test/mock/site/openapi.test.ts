// The generated OpenAPI document: structurally valid OpenAPI 3.1 (checked against a compact schema of
// the parts we emit), every $ref resolves, the components compile, and it covers the interface.
import { TargetError } from '../../../lib/target.ts'
import t from 'tap'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { buildOpenApi, ENDPOINTS } from '../../../mock/site/openapi/index.ts'
import { listSchemaRefs, schemaName } from '../../../lib/schemas.ts'
import { OPENAPI_31 } from './openapi-structure.ts'

type Json = Record<string, unknown>

function walk(node: unknown, at: string, visit: (node: Json, at: string) => void): void {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`, visit))
  else if (typeof node === 'object' && node !== null) {
    visit(node as Json, at)
    for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, visit)
  }
}

function resolvePointer(doc: unknown, pointer: string): unknown {
  let node = doc
  for (const raw of pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    node = typeof node === 'object' && node !== null ? (node as Json)[seg] : undefined
  }
  return node
}

const doc = buildOpenApi({ serverUrl: 'http://127.0.0.1:8080' }) as Json
const paths = doc.paths as Record<string, Record<string, Json>>
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch'])
const operations = Object.entries(paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.has(method))
    .map(([method, op]) => ({ path, method, op })),
)

t.test('the document matches the structural OpenAPI 3.1 schema', async (t) => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true })
  const validateDoc = ajv.compile(OPENAPI_31)
  const ok = validateDoc(doc)
  t.ok(ok, ok ? 'valid' : ajv.errorsText(validateDoc.errors))
  t.equal((doc.servers as Json[])[0]?.url, 'http://127.0.0.1:8080')
})

t.test('the structural schema is not vacuous', async (t) => {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true })
  const validateDoc = ajv.compile(OPENAPI_31)
  const broken = structuredClone(doc)
  const op = (broken.paths as Record<string, Record<string, Json>>)['/api/admin/v1/compat-sessions/{id}']?.get as Json
  ;(op.parameters as Json[])[0] = { name: 'id', in: 'path', schema: {} }
  t.notOk(validateDoc(broken), 'a path parameter without required: true is refused')
  t.notOk(validateDoc({ ...doc, openapi: '3.0.3' }), 'OpenAPI 3.0 is refused')
  const linkless = structuredClone(doc)
  const list = (linkless.paths as Record<string, Record<string, Json>>)['/api/admin/v1/compat-sessions']?.get as Json
  ;(((list.responses as Json)['200'] as Json).links as Json).getCompatSession = { parameters: { id: '$response.body#/data/0/id' } }
  t.notOk(validateDoc(linkless), 'a link without operationId or operationRef is refused')
  const flowless = structuredClone(doc)
  delete (((flowless.components as Json).securitySchemes as Json)['mas-admin'] as Json).flows
  t.notOk(validateDoc(flowless), 'an OAuth 2.0 scheme without flows is refused')
  const stray = structuredClone(doc)
  ;((stray.paths as Json)['/api/admin/v1/compat-sessions'] as Json).bogus = {}
  t.notOk(validateDoc(stray), 'an unknown key in a path item is refused')
})

t.test('every $ref resolves and every component compiles as JSON Schema', async (t) => {
  let refs = 0
  walk(doc, '#', (node, at) => {
    if (typeof node.$ref !== 'string') return
    refs++
    t.ok(node.$ref.startsWith('#/components/schemas/'), `${at}: local component ref ${node.$ref}`)
    t.not(resolvePointer(doc, node.$ref), undefined, `${at}: ${node.$ref} resolves`)
  })
  t.ok(refs > 100, `${refs} refs checked`)

  // The components as one schema resource: the OpenAPI 3.1 dialect is JSON Schema 2020-12 plus
  // annotations, so Ajv (with extension keywords allowed) must compile every one of them.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormatsModule.default(ajv)
  ajv.addSchema({ $id: 'https://openapi.invalid/doc.json', components: doc.components }, undefined, undefined, false)
  const components = (doc.components as Json).schemas as Json
  for (const name of Object.keys(components)) {
    t.doesNotThrow(() => ajv.getSchema(`https://openapi.invalid/doc.json#/components/schemas/${name}`), `component ${name} compiles`)
  }
  const single = ajv.getSchema('https://openapi.invalid/doc.json#/components/schemas/EventReportList')
  t.ok(single?.({ event_reports: [], total: 0 }), 'a bundled component still validates')
  t.notOk(single?.({ event_reports: [], total: 0, next_token: '1' }), 'and still rejects')
})

t.test('components: one per area A/B schema, named by schemaName', async (t) => {
  const components = (doc.components as Json).schemas as Json
  const expected = new Set(
    listSchemaRefs()
      .filter((r) => r.startsWith('admin/') || r.startsWith('homeserver/'))
      .map((r) => schemaName(r)),
  )
  t.same(new Set(Object.keys(components)), expected)
  walk(components, '#', (node, at) => {
    t.notOk('$id' in node || '$schema' in node, `${at} carries no $id/$schema`)
  })
})

t.test('operations: unique ids, path parameters match the template, security', async (t) => {
  const ids = operations.map((o) => o.op.operationId)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  const schemes = Object.keys(((doc.components as Json).securitySchemes as Json) ?? {})
  for (const { path, method, op } of operations) {
    const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort()
    const params = (op.parameters as Json[] | undefined) ?? []
    const declared = params
      .filter((p) => p.in === 'path')
      .map((p) => p.name)
      .sort()
    t.same(declared, inTemplate, `${method} ${path}: path parameters`)
    const names = params.map((p) => `${p.in}:${p.name}`)
    t.equal(new Set(names).size, names.length, `${method} ${path}: no duplicate parameters`)
    for (const req of [...((op.security as Json[] | undefined) ?? []), ...((doc.security as Json[]) ?? [])]) {
      for (const s of Object.keys(req)) t.ok(schemes.includes(s), `${method} ${path}: security scheme ${s} is defined`)
    }
  }
  t.same(paths['/_synapse/admin/v1/server_version']?.get?.security, [], 'server_version needs no token')
  const declared = new Set(((doc.tags as Json[]) ?? []).map((tag) => tag.name))
  for (const { path, method, op } of operations)
    for (const tag of op.tags as string[]) t.ok(declared.has(tag), `${method} ${path}: tag ${tag} is declared`)
})

const INTERFACE_A = [
  'GET /api/admin/v1/site-config',
  'GET /api/admin/v1/version',
  'GET /api/admin/v1/compat-sessions',
  'GET /api/admin/v1/compat-sessions/{id}',
  'POST /api/admin/v1/compat-sessions/{id}/finish',
  'GET /api/admin/v1/oauth2-sessions',
  'GET /api/admin/v1/oauth2-sessions/{id}',
  'POST /api/admin/v1/oauth2-sessions/{id}/finish',
  'GET /api/admin/v1/personal-sessions',
  'POST /api/admin/v1/personal-sessions',
  'GET /api/admin/v1/personal-sessions/{id}',
  'POST /api/admin/v1/personal-sessions/{id}/revoke',
  'POST /api/admin/v1/personal-sessions/{id}/regenerate',
  'POST /api/admin/v1/policy-data',
  'GET /api/admin/v1/policy-data/latest',
  'GET /api/admin/v1/policy-data/{id}',
]
const INTERFACE_B = [
  'GET /_synapse/admin/v1/event_reports',
  'GET /_synapse/admin/v1/event_reports/{report_id}',
  'DELETE /_synapse/admin/v1/event_reports/{report_id}',
  'GET /_synapse/admin/v1/server_version',
  'GET /_synapse/admin/v1/background_updates/status',
  'POST /_matrix/client/v3/rooms/{roomId}/report/{eventId}',
  'POST /_matrix/client/r0/rooms/{roomId}/report/{eventId}',
]

// user reports: beyond the interface document, in the Synapse admin API since v1.152.0 (filed through the client API since v1.133.0)
const USER_REPORTS = [
  'GET /_synapse/admin/v1/user_reports',
  'GET /_synapse/admin/v1/user_reports/{report_id}',
  'DELETE /_synapse/admin/v1/user_reports/{report_id}',
  'POST /_matrix/client/v3/users/{userId}/report',
]

// the homeserver admin API beyond the interface document: what report consumers and admin UIs call
const BEYOND_B = [
  'GET /_synapse/admin/v1/rooms/{roomId}/context/{eventId}',
  'GET /_synapse/admin/v1/rooms',
  'GET /_synapse/admin/v1/rooms/{roomId}',
  'GET /_synapse/admin/v1/rooms/{roomId}/members',
  'GET /_synapse/admin/v1/rooms/{roomId}/state',
  'GET /_synapse/admin/v1/users/{userId}/admin',
  'GET /_matrix/client/v3/user/{userId}/account_data/{type}',
  'PUT /_matrix/client/v3/user/{userId}/account_data/{type}',
  'GET /_matrix/client/v3/directory/room/{alias}',
  'GET /_matrix/key/v2/server',
]

// the admin API beyond the interface document, family by family
const BEYOND_A = [
  'GET /api/admin/v1/users',
  'POST /api/admin/v1/users',
  'GET /api/admin/v1/users/{id}',
  'GET /api/admin/v1/users/by-username/{username}',
  'POST /api/admin/v1/users/{id}/set-password',
  'POST /api/admin/v1/users/{id}/set-admin',
  'POST /api/admin/v1/users/{id}/deactivate',
  'POST /api/admin/v1/users/{id}/reactivate',
  'POST /api/admin/v1/users/{id}/lock',
  'POST /api/admin/v1/users/{id}/unlock',
  'GET /api/admin/v1/user-emails',
  'POST /api/admin/v1/user-emails',
  'GET /api/admin/v1/user-emails/{id}',
  'DELETE /api/admin/v1/user-emails/{id}',
  'GET /api/admin/v1/user-sessions',
  'GET /api/admin/v1/user-sessions/{id}',
  'POST /api/admin/v1/user-sessions/{id}/finish',
  'GET /api/admin/v1/oauth2-clients',
  'GET /api/admin/v1/oauth2-clients/{id}',
  'GET /api/admin/v1/upstream-oauth-providers',
  'GET /api/admin/v1/upstream-oauth-providers/{id}',
  'GET /api/admin/v1/upstream-oauth-links',
  'POST /api/admin/v1/upstream-oauth-links',
  'GET /api/admin/v1/upstream-oauth-links/{id}',
  'DELETE /api/admin/v1/upstream-oauth-links/{id}',
  'GET /api/admin/v1/user-registration-tokens',
  'POST /api/admin/v1/user-registration-tokens',
  'GET /api/admin/v1/user-registration-tokens/{id}',
  'PUT /api/admin/v1/user-registration-tokens/{id}',
  'POST /api/admin/v1/user-registration-tokens/{id}/revoke',
  'POST /api/admin/v1/user-registration-tokens/{id}/unrevoke',
]

t.test('covers exactly the endpoints of areas A and B, and the admin API beyond them', async (t) => {
  const got = operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()
  t.same(got, [...INTERFACE_A, ...BEYOND_A, ...INTERFACE_B, ...BEYOND_B, ...USER_REPORTS].sort())
  t.equal(ENDPOINTS.length, 23 + BEYOND_A.length + BEYOND_B.length + USER_REPORTS.length)
})

function op(method: string, path: string): Json {
  const o = paths[path]?.[method]
  if (!o) throw new Error(`no ${method} ${path}`)
  return o
}
const paramNames = (o: Json): string[] => ((o.parameters as Json[] | undefined) ?? []).map((p) => p.name as string)
const responseRef = (o: Json, status: string, type = 'application/json'): unknown =>
  (((o.responses as Json)[status] as Json | undefined)?.content as Json | undefined)?.[type]

t.test('parameters, bodies and responses of the listings and writes', async (t) => {
  const compat = op('get', '/api/admin/v1/compat-sessions')
  t.same(paramNames(compat), [
    'page[before]',
    'page[after]',
    'page[first]',
    'page[last]',
    'count',
    'filter[user]',
    'filter[user-session]',
    'filter[status]',
    'filter[created-before]',
    'filter[created-after]',
    'filter[last-active-before]',
    'filter[last-active-after]',
  ])
  const dateFilter = (compat.parameters as Json[]).find((p) => p.name === 'filter[created-after]') as Json
  t.equal(dateFilter['x-since'], 'v1.20.0', 'the v1.20 date filters are marked')
  t.same(dateFilter.schema, { type: 'string', format: 'date-time' })

  const oauth2 = op('get', '/api/admin/v1/oauth2-sessions')
  const client = (oauth2.parameters as Json[]).find((p) => p.name === 'filter[client]') as Json
  t.match(client, { in: 'query', style: 'form', explode: true, schema: { type: 'array' } }, 'filter[client] is repeatable')
  t.ok(paramNames(oauth2).includes('filter[client-kind]') && paramNames(oauth2).includes('filter[scope]'))

  const personal = op('get', '/api/admin/v1/personal-sessions')
  t.same(paramNames(personal).slice(5), [
    'filter[owner_user]',
    'filter[owner_client]',
    'filter[actor_user]',
    'filter[scope]',
    'filter[status]',
    'filter[expires_before]',
    'filter[expires_after]',
    'filter[expires]',
  ])

  const reports = op('get', '/_synapse/admin/v1/event_reports')
  t.same(paramNames(reports), ['from', 'limit', 'dir', 'user_id', 'room_id', 'event_sender_user_id'])
  t.same(reports.security, [{ 'hs-admin': [] }, { 'hs-admin-query': [] }])
  const userReports = op('get', '/_synapse/admin/v1/user_reports')
  t.same(paramNames(userReports), ['from', 'limit', 'dir', 'user_id', 'target_user_id'])
  t.equal(userReports['x-since'], 'v1.152.0', 'the user-report admin API is marked with its release')
  t.equal(op('post', '/_matrix/client/v3/users/{userId}/report')['x-since'], 'v1.133.0', 'filing a user report too')

  const create = op('post', '/api/admin/v1/personal-sessions')
  t.same(create.requestBody, {
    required: true,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/PersonalSessionCreateRequest' } } },
  })
  t.same(responseRef(create, '201'), { schema: { $ref: '#/components/schemas/PersonalSessionCreated' } })
  t.ok(responseRef(create, '422', 'text/plain'), 'the plain-text body rejection is declared')
  t.same(Object.keys(create.responses as Json), ['201', '400', '401', '404', '410', '413', '414', '415', '422', '431'])

  const regenerate = op('post', '/api/admin/v1/personal-sessions/{id}/regenerate')
  t.same(responseRef(regenerate, '201'), { schema: { $ref: '#/components/schemas/PersonalSessionCreated' } })
  t.same(Object.keys(regenerate.responses as Json), ['201', '400', '401', '403', '404', '413', '414', '415', '422', '431'])
  t.same(Object.keys(op('post', '/api/admin/v1/personal-sessions/{id}/revoke').responses as Json), [
    '200',
    '400',
    '401',
    '404',
    '409',
    '413',
    '414',
    '431',
  ])
  t.same(responseRef(op('get', '/api/admin/v1/personal-sessions/{id}'), '200'), {
    schema: { $ref: '#/components/schemas/PersonalSessionSingle' },
  })
  t.same(responseRef(op('post', '/api/admin/v1/policy-data'), '201'), { schema: { $ref: '#/components/schemas/PolicyDataSingle' } })
  t.same(responseRef(op('delete', '/_synapse/admin/v1/event_reports/{report_id}'), '200'), {
    schema: { $ref: '#/components/schemas/EventReportDeleteResponse' },
  })
  t.same(Object.keys(op('get', '/_synapse/admin/v1/event_reports/{report_id}').responses as Json), [
    '200',
    '400',
    '401',
    '403',
    '404',
    '413',
    '500',
    '503',
  ])
  t.same(Object.keys(op('post', '/_matrix/client/v3/rooms/{roomId}/report/{eventId}').responses as Json), [
    '200',
    '400',
    '401',
    '403',
    '404',
    '413',
    '500',
    '503',
  ])
  t.same(responseRef(op('get', '/api/admin/v1/compat-sessions/{id}'), '404'), { schema: { $ref: '#/components/schemas/AdminError' } })
  t.same(responseRef(op('get', '/_synapse/admin/v1/event_reports'), '403'), { schema: { $ref: '#/components/schemas/HomeserverError' } })
})

t.test('prefixes are configurable and checked', async (t) => {
  const custom = buildOpenApi({ hsPrefix: '/_hs', clientPrefix: '/_compat' }) as Json
  const keys = Object.keys(custom.paths as Json)
  t.ok(keys.includes('/_hs/admin/v1/event_reports'))
  t.ok(keys.includes('/_compat/client/v3/rooms/{roomId}/report/{eventId}'))
  t.notOk(keys.some((k) => k.startsWith('/_synapse') || k.startsWith('/_matrix')))
  t.same((custom.servers as Json[])[0], { url: '/' })
  t.throws(() => buildOpenApi({ hsPrefix: '_synapse' }), TargetError)
  t.throws(() => buildOpenApi({ hsPrefix: '_synapse' }), /hsPrefix: '_synapse' must look like \/_synapse/)
  t.ok(
    Object.keys((buildOpenApi({ hsPrefix: '/_synapse/' }) as Json).paths as Json).includes('/_synapse/admin/v1/event_reports'),
    'a trailing slash is dropped, as everywhere',
  )
  t.throws(() => buildOpenApi({ clientPrefix: '/a b' }), /clientPrefix/)
})

t.test('security schemes: the OAuth 2.0 flows follow the routes the auth service has', async (t) => {
  const schemes = (doc.components as Json).securitySchemes as Json
  const flows = (schemes['mas-admin'] as Json).flows as Json
  t.same(flows.clientCredentials, {
    tokenUrl: 'http://127.0.0.1:8080/oauth2/token',
    scopes: { 'urn:mas:admin': 'the auth service admin API' },
  })
  const base = buildOpenApi() as Json
  const tables = (await import('../../../mock/admin/routes.ts')).adminTable()
  const route = (pattern: string) => ({ method: 'GET', pattern, handler: () => ({ status: 200 }), doc: { undocumented: 'sign-in' } })
  const withAuthorize = buildOpenApi({
    serverUrl: 'http://mock.test',
    tables: [tables, { api: 'mas-public', area: 'other', routes: [route('/authorize'), route('/.well-known/openid-configuration')] }],
  }) as Json
  const bare = buildOpenApi({ tables: [tables, { api: 'mas-public', area: 'other', routes: [route('/authorize')] }] }) as Json
  t.same(
    Object.keys((((bare.components as Json).securitySchemes as Json)['mas-admin'] as Json).flows as Json),
    ['clientCredentials'],
    'a bare /authorize without discovery: no authorization-code flow',
  )
  const code = ((((withAuthorize.components as Json).securitySchemes as Json)['mas-admin'] as Json).flows as Json).authorizationCode as Json
  t.same(
    code,
    {
      authorizationUrl: 'http://mock.test/authorize',
      tokenUrl: 'http://mock.test/oauth2/token',
      refreshUrl: 'http://mock.test/oauth2/token',
      scopes: { 'urn:mas:admin': 'the auth service admin API' },
    },
    'with an authorize route: the authorization-code flow',
  )
  const plain = (((base.components as Json).securitySchemes as Json)['mas-admin'] as Json).flows as Json
  // the default tables: the authorization-code flow exactly when the auth service has the discovery route (oidc work)
  const { publicTable } = await import('../../../mock/auth-service/routes.ts')
  const { mockOptions } = await import('../../../mock/core/options.ts')
  const discovery = publicTable(mockOptions({}, {})).routes.some((e) => e.pattern === '/.well-known/openid-configuration')
  t.same(
    Object.keys(plain),
    discovery ? ['clientCredentials', 'authorizationCode'] : ['clientCredentials'],
    `default tables: ${discovery ? 'discovery, so' : 'no discovery, no'} authorization-code flow`,
  )
  t.equal((plain.clientCredentials as Json).tokenUrl, '/oauth2/token', 'relative to the server when no server URL is given')
})

t.test('the document is plain JSON and deterministic', async (t) => {
  const again = buildOpenApi({ serverUrl: 'http://127.0.0.1:8080' })
  t.equal(JSON.stringify(again), JSON.stringify(doc))
  t.same(JSON.parse(JSON.stringify(doc)), doc)
})
