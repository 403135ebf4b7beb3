// Independent check against the service's own OpenAPI description (../shared/reference/upstream/,
// read here only, never copied into schemas/ or code): its examples must validate against our
// schemas, and its enums, field sets, nullability and query parameters must agree with ours.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { sharedSkip } from '../fixtures/shared.ts'
import { buildOpenApi, ENDPOINTS } from '../../mock/site/openapi/index.ts'
import {
  COMPAT_SESSION_STATUSES,
  INCLUDE_COUNT_VALUES,
  listSchemaRefs,
  OAUTH2_CLIENT_KINDS,
  OAUTH2_SESSION_STATUSES,
  PERSONAL_SESSION_STATUSES,
  schemaFor,
  schemaName,
  validate,
} from '../../lib/schemas.ts'

type Json = Record<string, unknown>

const UPSTREAM = new URL('../../../shared/reference/upstream/mas-admin-api.openapi.json', import.meta.url)
// Without ../shared every test below skips with the reason (CI requires it: AC_REQUIRE_SHARED=1).
const skip = sharedSkip(t, UPSTREAM)
const upstream = (skip ? { paths: {}, components: { schemas: {} } } : JSON.parse(readFileSync(UPSTREAM, 'utf8'))) as Json
const upPaths = upstream.paths as Record<string, Record<string, Json>>
const upSchemas = (upstream.components as Json).schemas as Record<string, Json>

const ours = buildOpenApi() as Json
const ourPaths = ours.paths as Record<string, Record<string, Json>>

// Component name -> our ref, to validate with lib/schemas.ts.
const refByName = new Map(listSchemaRefs().map((r) => [schemaName(r), r] as const))
function ourRefOf(schema: unknown): string {
  const ref = (schema as Json | undefined)?.$ref
  if (typeof ref !== 'string') throw new Error(`expected a component $ref, got ${JSON.stringify(schema)}`)
  const name = ref.split('/').pop() as string
  const found = refByName.get(name)
  if (!found) throw new Error(`no schema ref for component ${name}`)
  return found
}

const adminEndpoints = ENDPOINTS.filter((e) => e.area === 'admin')

t.test('every admin endpoint we cover exists upstream with the same operationId', { skip }, async (t) => {
  t.equal(
    adminEndpoints.length,
    47,
    'every operation upstream: the 16 of the interface document, then users 10, user-emails 4, user-sessions 3, oauth2-clients 2, upstream providers 2 and links 4, registration tokens 6',
  )
  for (const ep of adminEndpoints) {
    const up = upPaths[ep.path]?.[ep.method]
    t.ok(up, `${ep.method.toUpperCase()} ${ep.path} exists upstream`)
    t.equal(up?.operationId, ep.operationId, `${ep.path} operationId`)
  }
})

t.test('every upstream response example of a covered endpoint validates against our schema', { skip }, async (t) => {
  let examples = 0
  for (const ep of adminEndpoints) {
    const up = upPaths[ep.path]?.[ep.method]
    const ourOp = ourPaths[ep.path]?.[ep.method]
    if (!up || !ourOp) continue
    for (const [status, response] of Object.entries(up.responses as Record<string, Json>)) {
      const ourResponse = (ourOp.responses as Record<string, Json>)[status]
      t.ok(ourResponse, `${ep.operationId}: we declare upstream's status ${status}`)
      const example = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.example
      if (example === undefined || !ourResponse) continue
      const ref = ourRefOf(((ourResponse.content as Json)['application/json'] as Json).schema)
      const r = validate(ref, example)
      t.ok(r.valid, `${ep.operationId} ${status} example validates against ${ref}${r.valid ? '' : `: ${r.text}`}`)
      examples++
    }
  }
  t.ok(examples >= 30, `${examples} examples checked`)
})

t.test('upstream schema-level examples validate against ours', { skip }, async (t) => {
  t.ok(validate('admin/common#ULID', upSchemas.ULID?.example).valid, 'ULID example')
  t.ok(validate('admin/common#DeviceID', upSchemas.DeviceID?.example).valid, 'DeviceID example')
  const policyExample = ((upSchemas.SetPolicyDataRequest?.properties as Json).data as Json).example
  t.ok(validate('admin/policy-data#SetRequest', { data: policyExample }).valid, 'SetPolicyDataRequest data example')
})

t.test('enum values equal upstream enums', { skip }, async (t) => {
  const enumOf = (name: string): unknown => upSchemas[name]?.enum
  t.same(COMPAT_SESSION_STATUSES, enumOf('CompatSessionStatus'))
  t.same(OAUTH2_SESSION_STATUSES, enumOf('OAuth2SessionStatus'))
  t.same(PERSONAL_SESSION_STATUSES, enumOf('PersonalSessionStatus'))
  t.same(OAUTH2_CLIENT_KINDS, enumOf('OAuth2ClientKind2'), 'the kind of filter[client-kind]')
  t.same(OAUTH2_CLIENT_KINDS, enumOf('OAuth2ClientKind'))
  const countValues = (upSchemas.IncludeCount?.oneOf as Json[]).flatMap((b) => b.enum as string[])
  t.same(INCLUDE_COUNT_VALUES, countValues)
  const compatFilter = (upPaths['/api/admin/v1/compat-sessions']?.get?.parameters as Json[]).find((p) => p.name === 'filter[status]')
  t.equal((compatFilter?.schema as Json).$ref, '#/components/schemas/CompatSessionStatus', 'upstream uses that enum for filter[status]')
})

function upstreamNullable(prop: Json): boolean {
  const type = prop.type
  if (Array.isArray(type) && type.includes('null')) return true
  return Array.isArray(prop.anyOf) && (prop.anyOf as Json[]).some((b) => b.type === 'null')
}

const RESOURCES = [
  { upstream: 'CompatSession', ref: 'admin/compat-session#Attributes', single: ['/api/admin/v1/compat-sessions/{id}', 'get'] },
  { upstream: 'OAuth2Session', ref: 'admin/oauth2-session#Attributes', single: ['/api/admin/v1/oauth2-sessions/{id}', 'get'] },
  { upstream: 'PersonalSession', ref: 'admin/personal-session#Attributes', single: ['/api/admin/v1/personal-sessions/{id}', 'get'] },
  { upstream: 'PolicyData', ref: 'admin/policy-data#Attributes', single: ['/api/admin/v1/policy-data/{id}', 'get'] },
] as const

function ourProperties(ref: string): Json {
  const s = schemaFor(ref)
  const own = (s.properties as Json | undefined) ?? {}
  // Attributes of personal sessions keep their fields in AttributeFields (see the schema).
  const base = ref === 'admin/personal-session#Attributes' ? (schemaFor('admin/personal-session#AttributeFields').properties as Json) : {}
  return { ...base, ...own }
}

t.test('attribute field sets, required keys and nullability agree with upstream', { skip }, async (t) => {
  for (const res of RESOURCES) {
    const up = upSchemas[res.upstream] as Json
    const upProps = up.properties as Record<string, Json>
    const ourKeys = Object.keys(ourProperties(res.ref))
    t.same(ourKeys.sort(), Object.keys(upProps).sort(), `${res.upstream}: same keys (access_token is declared, as forbidden, in ours)`)
    const ourRequired = new Set(
      (res.ref === 'admin/personal-session#Attributes' ? schemaFor('admin/personal-session#AttributeFields') : schemaFor(res.ref))
        .required as string[],
    )
    for (const k of up.required as string[]) t.ok(ourRequired.has(k), `${res.upstream}.${k} is required in ours too`)

    // Nullability, checked by behaviour: take upstream's own single example, null one key, validate.
    const [path, method] = res.single
    const example = (((upPaths[path]?.[method]?.responses as Json)['200'] as Json).content as Json)['application/json'] as Json
    const attributes = ((example.example as Json).data as Json).attributes as Json
    t.ok(validate(res.ref, attributes).valid, `${res.upstream}: upstream's example attributes are valid`)
    for (const [key, prop] of Object.entries(upProps)) {
      if (key === 'access_token') continue // only in the 201 (see the next test)
      if (key === 'owner_user_id' || key === 'owner_client_id') continue // exactly one is null (tested in samples)
      if (key === 'data') continue // free-form
      const nulled = { ...attributes, [key]: null }
      t.equal(
        validate(res.ref, nulled).valid,
        upstreamNullable(prop),
        `${res.upstream}.${key}: null ${upstreamNullable(prop) ? 'allowed' : 'refused'} as upstream says`,
      )
    }
  }
})

t.test('the access token: upstream declares it optional; ours allows it only in the 201', { skip }, async (t) => {
  const up = upSchemas.PersonalSession as Json
  t.ok('access_token' in (up.properties as Json))
  t.notOk((up.required as string[]).includes('access_token'))
  t.ok('access_token' in (schemaFor('admin/personal-session#CreatedAttributes').properties as Json))
  t.same(schemaFor('admin/personal-session#CreatedAttributes').required, ['access_token'])
})

t.test('request bodies: field sets and required keys agree with upstream', { skip }, async (t) => {
  for (const [upName, ref] of [
    ['CreatePersonalSessionRequest', 'admin/personal-session#CreateRequest'],
    ['RegeneratePersonalSessionRequest', 'admin/personal-session#RegenerateRequest'],
    ['SetPolicyDataRequest', 'admin/policy-data#SetRequest'],
  ] as const) {
    const up = upSchemas[upName] as Json
    const s = schemaFor(ref)
    t.same(Object.keys(s.properties as Json).sort(), Object.keys(up.properties as Json).sort(), `${upName}: same keys`)
    t.same(
      [...((s.required as string[] | undefined) ?? [])].sort(),
      [...((up.required as string[] | undefined) ?? [])].sort(),
      `${upName}: same required keys`,
    )
  }
})

t.test('SiteConfig: same keys; ours does not require the v1.19 field', { skip }, async (t) => {
  const up = upSchemas.SiteConfig as Json
  const s = schemaFor('admin/site-config#SiteConfig')
  t.same(Object.keys(s.properties as Json).sort(), Object.keys(up.properties as Json).sort())
  const upRequired = (up.required as string[]).filter((k) => k !== 'password_registration_token_required').sort()
  t.same([...(s.required as string[])].sort(), upRequired)
  t.equal(((s.properties as Json).password_registration_token_required as Json)['x-since'], 'v1.19.0')
})

t.test('query parameters of the listings are the ones upstream declares', { skip }, async (t) => {
  for (const ep of adminEndpoints.filter((e) => e.query)) {
    const upNames = ((upPaths[ep.path]?.[ep.method]?.parameters as Json[]) ?? []).map((p) => p.name).sort()
    const ourNames = ((ourPaths[ep.path]?.[ep.method]?.parameters as Json[]) ?? []).map((p) => p.name).sort()
    t.same(ourNames, upNames, `${ep.operationId}: same query parameters`)
    for (const p of (upPaths[ep.path]?.[ep.method]?.parameters as Json[]) ?? []) {
      const ourParam = ((ourPaths[ep.path]?.[ep.method]?.parameters as Json[]) ?? []).find((q) => q.name === p.name)
      const upIsArray = (p.schema as Json).type === 'array'
      const ourIsArray = (ourParam?.schema as Json | undefined)?.type === 'array'
      t.equal(ourIsArray, upIsArray, `${ep.operationId} ${String(p.name)}: repeatable in both or in neither`)
    }
  }
})
