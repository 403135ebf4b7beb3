// The served document's security schemes and links: every scheme an operation names is declared, every
// operation the mock authenticates names one (and those that name none answer without a token), the
// OAuth 2.0 flow's token URL is the mock's real token endpoint and its token calls the admin API; every
// link names an existing operation and its parameters, its runtime expression points into the
// response schema, the families have the links they should, and following them on the live mock works.
import t from 'tap'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions, randomToken } from '../../../mock/core/options.ts'
import { generateToken } from '../../../mock/store/mas/index.ts'

type Json = Record<string, any>

const tokens = {
  adminToken: generateToken('mat'),
  userToken: generateToken('mat'),
  hsAdminToken: randomToken('syt_'),
  hsUserToken: randomToken('syt_'),
  adminClientSecret: randomToken('secret_'),
}
const mock = await startMock(mockOptions({ host: '127.0.0.1', port: 0, seed: 4, sessions: 30, reports: 6, logFile: null, ...tokens }, {}))
t.teardown(() => mock.close())
const url = mock.url
const doc = (await (await fetch(`${url}/api/spec.json`)).json()) as Json
const METHODS = ['get', 'put', 'post', 'delete', 'patch']
const ops = Object.entries(doc.paths as Json).flatMap(([p, item]) =>
  METHODS.filter((m) => item[m]).map((m) => ({ path: p, method: m, op: item[m] as Json })),
)
const byId = new Map(ops.map((o) => [o.op.operationId as string, o]))
const schemes = doc.components.securitySchemes as Json

/** An independent walk of a JSON pointer through a schema ($ref into components, allOf/anyOf/oneOf, properties, items). */
function resolve(schema: Json | undefined, pointer: string[]): Json | undefined {
  if (!schema) return undefined
  if (schema.$ref) return resolve(doc.components.schemas[String(schema.$ref).replace('#/components/schemas/', '')], pointer)
  if (pointer.length === 0) return schema
  for (const k of ['allOf', 'anyOf', 'oneOf'])
    for (const m of schema[k] ?? []) {
      const hit = resolve(m, pointer)
      if (hit) return hit
    }
  const [head, ...rest] = pointer as [string, ...string[]]
  if (/^\d+$/.test(head)) return schema.items ? resolve(schema.items, rest) : undefined
  return schema.properties?.[head] ? resolve(schema.properties[head], rest) : undefined
}

t.test('the schema walk is not vacuous', async (t) => {
  const page = { $ref: '#/components/schemas/CompatSessionPage' }
  t.ok(resolve(page, ['data', '0', 'id']), 'data/0/id is in a page')
  t.notOk(resolve(page, ['data', '0', 'nope']), 'data/0/nope is not')
  t.notOk(resolve(page, ['data', 'id']), 'data/id is not (data is an array)')
})

const allLinks = ops.flatMap(({ op }) =>
  Object.entries(op.responses as Json).flatMap(([status, r]) =>
    Object.entries((r.links ?? {}) as Json).map(([name, link]) => ({ from: op, status, response: r as Json, name, link: link as Json })),
  ),
)

t.test('security: every named scheme is declared, with the scopes it offers', async (t) => {
  t.same(Object.keys(schemes).sort(), ['hs-admin', 'hs-admin-query', 'hs-user', 'hs-user-query', 'mas-admin', 'mas-personal-token'])
  t.notOk('security' in doc, 'no document-wide default: each operation names its own')
  for (const { path, method, op } of ops) {
    t.ok(Array.isArray(op.security), `${method} ${path}: has security`)
    for (const req of op.security as Json[]) {
      for (const [name, scopes] of Object.entries(req)) {
        t.ok(schemes[name], `${op.operationId}: scheme ${name} is declared`)
        if (schemes[name]?.type === 'oauth2') {
          for (const flow of Object.values(schemes[name].flows as Json))
            for (const s of scopes as string[]) t.ok(s in (flow as Json).scopes, `${op.operationId}: scope ${s} offered by ${name}`)
        }
      }
    }
    const names = (op.security as Json[]).flatMap((r) => Object.keys(r))
    const family = path.startsWith('/api/') ? 'mas' : 'hs'
    if (names.length)
      t.ok(
        names.every((n) => n.startsWith(family === 'mas' ? 'mas-' : 'hs-')),
        `${op.operationId}: schemes of its own area`,
      )
  }
})

t.test('security: the mock authenticates exactly the operations that name a scheme', async (t) => {
  for (const { path, method, op } of ops) {
    const p = path.replace(/\{[^}]+\}/g, (_, n) => (n === 'id' ? '01J00000000000000000000000' : '1'))
    const res = await fetch(url + p, {
      method: method.toUpperCase(),
      headers: method === 'get' ? {} : { 'content-type': 'application/json' },
      body: method === 'get' ? undefined : '{}',
    })
    const body = await res.text()
    const refused =
      (res.status === 400 && body.includes('Missing authorization header')) || (res.status === 401 && body.includes('M_MISSING_TOKEN'))
    t.equal(
      (op.security as Json[]).length > 0,
      refused,
      `${method.toUpperCase()} ${path}: ${refused ? 'needs a token and names a scheme' : 'needs no token and names none'} (${res.status})`,
    )
  }
})

t.test("security: the OAuth 2.0 flow is the mock's real token endpoint", async (t) => {
  const flow = schemes['mas-admin'].flows.clientCredentials as Json
  t.equal(flow.tokenUrl, `${url}/oauth2/token`)
  const res = await fetch(flow.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: mock.options.adminClientId,
      client_secret: tokens.adminClientSecret,
      scope: Object.keys(flow.scopes).join(' '),
    }),
  })
  t.equal(res.status, 200, 'client_credentials at the tokenUrl')
  const { access_token } = (await res.json()) as Json
  const users = await fetch(`${url}/api/admin/v1/users`, { headers: { authorization: `Bearer ${access_token}` } })
  t.equal(users.status, 200, 'and its token calls the admin API')
  await users.arrayBuffer()
  const authorize = schemes['mas-admin'].flows.authorizationCode as Json | undefined
  if (authorize) {
    const a = await fetch(authorize.authorizationUrl, { redirect: 'manual' })
    await a.arrayBuffer()
    t.not(a.status, 404, 'the authorization URL is routed')
  }
})

t.test('links: target operation, parameters and runtime expression resolve', async (t) => {
  t.ok(allLinks.length > 60, `${allLinks.length} links`)
  for (const { from, status, response, name, link } of allLinks) {
    const what = `${from.operationId} ${status} → ${name}`
    const target = byId.get(link.operationId)
    t.ok(target, `${what}: operation ${link.operationId} exists`)
    const params = ((target?.op.parameters ?? []) as Json[]).map((p) => `${p.in}.${p.name}`)
    for (const [key, expr] of Object.entries(link.parameters as Json)) {
      const qualified = /^(path|query|header|cookie)\./.test(key) ? [key] : params.filter((p) => p.endsWith(`.${key}`))
      t.equal(qualified.length, 1, `${what}: parameter ${key} names one parameter of the target`)
      t.ok(params.includes(qualified[0] ?? ''), `${what}: ${key} is a parameter of ${link.operationId}`)
      const m = /^\$response\.body#(\/.*)$/.exec(String(expr))
      t.ok(m, `${what}: ${expr} is a body expression`)
      const schema = response.content?.['application/json']?.schema
      t.ok(m && resolve(schema, m[1]!.slice(1).split('/')), `${what}: ${expr} points into the response schema`)
    }
    for (const p of (target?.op.parameters ?? []) as Json[]) {
      if (p.in === 'path')
        t.ok(p.name in link.parameters || `path.${p.name}` in link.parameters, `${what}: path parameter ${p.name} is given`)
    }
  }
})

const linked = (from: string, to: string, params?: Json) => {
  const hit = allLinks.find((l) => l.from.operationId === from && l.link.operationId === to)
  return hit && (params === undefined || JSON.stringify(hit.link.parameters) === JSON.stringify(params))
}

t.test('links: every family with a fetchable item has them', async (t) => {
  for (const { path, op: get, method } of ops) {
    const m = /^(.*)\/\{([^}/]+)\}$/.exec(path)
    // account data answers the content alone: nothing in it names the item (user and type are the path's)
    if (method !== 'get' || !m || get.operationId === 'getAccountData') continue
    const list = (doc.paths as Json)[m[1]!]?.get as Json | undefined
    if (list) t.ok(linked(list.operationId, get.operationId), `${list.operationId} → ${get.operationId}`)
    const create = (doc.paths as Json)[m[1]!]?.post as Json | undefined
    if (create) t.ok(linked(create.operationId, get.operationId), `${create.operationId} → ${get.operationId}`)
    for (const o of ops) {
      if (o.op !== get && (o.path === path || (o.path.startsWith(`${path}/`) && !o.path.slice(path.length).includes('{'))))
        t.ok(linked(get.operationId, o.op.operationId), `${get.operationId} → ${o.op.operationId}`)
    }
  }
  t.ok(linked('listCompatSessions', 'getCompatSession', { id: '$response.body#/data/0/id' }))
  t.ok(linked('getCompatSession', 'finishCompatSession', { id: '$response.body#/data/id' }))
  t.ok(linked('finishCompatSession', 'getCompatSession', { id: '$response.body#/data/id' }), 'an action → the item read back')
  t.ok(linked('createPersonalSession', 'getPersonalSession', { id: '$response.body#/data/id' }))
  for (const a of ['lockUser', 'unlockUser', 'deactivateUser', 'reactivateUser']) t.ok(linked('getUser', a), `getUser → ${a}`)
  t.ok(linked('getUserByUsername', 'getUser', { id: '$response.body#/data/id' }))
  t.ok(linked('getUser', 'listCompatSessions', { 'query.filter[user]': '$response.body#/data/id' }), 'a user → its sessions')
  t.ok(linked('getCompatSession', 'getUser', { id: '$response.body#/data/attributes/user_id' }), 'a session → its user')
  t.ok(linked('getLatestPolicyData', 'getPolicyData', { id: '$response.body#/data/id' }))
  t.ok(linked('listEventReports', 'getEventReport', { report_id: '$response.body#/event_reports/0/id' }))
  t.ok(linked('getEventReport', 'deleteEventReport', { report_id: '$response.body#/id' }))
  t.ok(linked('listUserReports', 'getUserReport', { report_id: '$response.body#/user_reports/0/id' }))
  t.ok(linked('getUserReport', 'deleteUserReport', { report_id: '$response.body#/id' }))
})

/** The value of a `$response.body#/…` expression in a body. */
const evaluate = (body: unknown, expr: string): unknown =>
  expr
    .replace(/^\$response\.body#\//, '')
    .split('/')
    .reduce<any>((node, seg) => (node == null ? undefined : node[seg]), body)

t.test('links: followed on the live mock, every GET target answers 200', async (t) => {
  const auth = (p: string) => ({ authorization: `Bearer ${p.startsWith('/api/') ? tokens.adminToken : tokens.hsAdminToken}` })
  const followed = new Set<string>()
  // from each listing to its item, and from the item along its GET links (path or query parameters)
  const follow = async (op: Json, body: unknown, depth: number): Promise<void> => {
    for (const [name, link] of Object.entries((op.responses['200']?.links ?? {}) as Json)) {
      const target = byId.get(link.operationId)!
      const [key, expr] = Object.entries(link.parameters as Json)[0] as [string, string]
      const value = evaluate(body, expr)
      if (target.method !== 'get' || value === undefined || value === null) continue // an empty listing, an attribute not set
      const p = key.startsWith('query.')
        ? `${target.path}?${encodeURIComponent(key.slice(6))}=${encodeURIComponent(String(value))}`
        : target.path.replace(/\{[^}]+\}/, encodeURIComponent(String(value)))
      const got = await fetch(url + p, { headers: auth(p) })
      const next = await got.json()
      t.equal(got.status, 200, `${op.operationId} → ${name}: GET ${p}`)
      followed.add(`${op.operationId} → ${name}`)
      if (depth > 0 && got.status === 200) await follow(target.op, next, depth - 1)
    }
  }
  for (const { path, op } of ops.filter((o) => o.method === 'get' && !o.path.includes('{'))) {
    const res = await fetch(url + path, { headers: auth(path) })
    if (res.status === 200) await follow(op, await res.json(), 1)
    else await res.arrayBuffer()
  }
  t.ok(followed.size >= 30, `${followed.size} distinct links followed`)
})
