// The generated configurations, checked against the upstream configuration schemas (an independent source:
// ../shared/reference/upstream/, used by tests only) and against YAML parsers.
import t from 'tap'
import { sharedSkip } from '../../fixtures/shared.ts'
import { readFileSync } from 'node:fs'
import { createPrivateKey } from 'node:crypto'
import { isIP } from 'node:net'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { parse as parseYaml } from 'yaml'
import {
  generateFiles,
  homeserverConfig,
  makePlan,
  masConfig,
  postgresInitSql,
  planSecrets,
  type DeployPlan,
} from '../../../scripts/deploy/config.ts'

const upstream = new URL('../../../../shared/reference/upstream/', import.meta.url)
const masSchemaPath = new URL('mas-config.schema.json', upstream)
const hsSchemaPath = new URL('synapse-config.schema.yaml', upstream)

function plan(homeserverTag: string, masTag = 'latest'): DeployPlan {
  return makePlan({ ports: { mas: 18080, homeserver: 18008, postgres: 15432 }, masTag, homeserverTag })
}

function validator(schema: Record<string, unknown>) {
  // Upstream schemas carry keywords of their own (examples, io.element.*): not strict, but every format known.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false })
  addFormats.default(ajv)
  // Formats of the auth service's schema (schemars): unsigned integer widths and IP addresses.
  const uint = (bits: number) => ({ type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= 0 && n < 2 ** bits })
  for (const bits of [8, 16, 32, 64]) ajv.addFormat(`uint${bits}`, uint(bits))
  ajv.addFormat('uint', uint(64))
  ajv.addFormat('ip', { type: 'string', validate: (s: string) => isIP(s) !== 0 })
  return ajv.compile(schema)
}

/** Keys of `value` that the schema does not declare, following $ref/allOf/anyOf/oneOf and `properties`. */
function undeclared(schema: any, root: any, value: unknown, path: string, depth: number): string[] {
  if (depth === 0 || typeof value !== 'object' || value === null) return []
  const resolve = (s: any): any[] => {
    if (!s || typeof s !== 'object') return []
    const out = [s]
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
      const target = s.$ref
        .slice(2)
        .split('/')
        .reduce((o: any, k: string) => o?.[k], root)
      out.push(...resolve(target))
    }
    for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[k])) for (const sub of s[k]) out.push(...resolve(sub))
    return out
  }
  const parts = resolve(schema)
  if (Array.isArray(value)) {
    const items = parts.map((p) => p.items).filter(Boolean)
    return value.flatMap((v, i) => items.flatMap((it: any) => undeclared(it, root, v, `${path}[${i}]`, depth - 1)))
  }
  const props: Record<string, any> = Object.assign({}, ...parts.map((p) => p.properties ?? {}))
  if (Object.keys(props).length === 0) return []
  const out: string[] = []
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!(k in props)) out.push(`${path}.${k}`)
    else out.push(...undeclared(props[k], root, v, `${path}.${k}`, depth - 1))
  }
  return out
}

const noSchema = (u: URL) => sharedSkip(t, u)

t.test('auth service config validates against the upstream schema', { skip: noSchema(masSchemaPath) }, async (t) => {
  const schema = JSON.parse(readFileSync(masSchemaPath, 'utf8'))
  const validate = validator(schema)
  for (const tag of ['v1.157.1', '1.120.0']) {
    const p = plan(tag)
    const config = masConfig(p)
    t.ok(validate(config), `valid for homeserver ${tag}`, { errors: validate.errors })
    t.same(undeclared(schema, schema, config, '$', 4), [], 'no key unknown to the schema')
    // The YAML text, as the service reads it, is the same object.
    t.same(parseYaml(generateFiles(p).masConfigYaml), config, 'YAML round trip')
  }
  // The check has teeth: a wrong resource name, homeserver kind or port type is refused.
  const bad = masConfig(plan('latest')) as any
  bad.http.listeners[0].resources.push({ name: 'bogus' })
  t.notOk(validate(bad), 'unknown resource refused')
  const bad2 = masConfig(plan('latest')) as any
  bad2.matrix.kind = 'dendrite'
  t.notOk(validate(bad2), 'unknown homeserver kind refused')
})

t.test('auth service config content', async (t) => {
  const p = plan('v1.157.1')
  const c = masConfig(p) as any
  const names = c.http.listeners[0].resources.map((r: any) => r.name)
  for (const r of ['adminapi', 'health', 'oauth', 'compat', 'discovery', 'human', 'graphql']) t.ok(names.includes(r), `resource ${r}`)
  t.same(c.http.listeners[0].binds, [{ address: '127.0.0.1:18080' }])
  t.same(c.policy.data.admin_clients, [p.adminClient.id])
  t.ok(
    c.clients.some((x: any) => x.client_id === p.adminClient.id && x.client_secret === p.adminClient.secret),
    'admin client is a static client',
  )
  t.match(c.database.uri, /^postgresql:\/\/admin_conformance:[A-Za-z0-9]+@127\.0\.0\.1:15432\/mas$/)
  t.same(c.matrix, { kind: 'synapse', homeserver: p.serverName, secret: p.matrixSecret, endpoint: 'http://127.0.0.1:18008/' })
  t.match(c.secrets.encryption, /^[0-9a-f]{64}$/)
  for (const k of c.secrets.keys) t.doesNotThrow(() => createPrivateKey(k.key), `key ${k.kid} is a private key`)
  t.match(p.adminClient.id, /^[0-9A-HJKMNP-TV-Z]{26}$/, 'client ID is a ULID')

  const legacy = masConfig(plan('v1.120.0', 'v1.2.0')) as any
  t.equal(legacy.matrix.kind, 'synapse_legacy', 'old homeserver with MAS >= 1.0: legacy API')
  t.equal(legacy.clients.length, 3, 'the homeserver gets a client of its own')
  t.equal((masConfig(plan('v1.120.0', 'v0.15.0')) as any).matrix.kind, 'synapse')
})

t.test('homeserver config validates against the upstream schema', { skip: noSchema(hsSchemaPath) }, async (t) => {
  const schema = parseYaml(readFileSync(hsSchemaPath, 'utf8'))
  const validate = validator(schema)
  const stable = plan('v1.157.1')
  const config = homeserverConfig(stable)
  t.ok(validate(config), 'valid', { errors: validate.errors })
  t.same(undeclared(schema, schema, config, '$', 4), [], 'no key unknown to the schema')
  t.same(parseYaml(generateFiles(stable).homeserverConfigYaml), config, 'YAML round trip')

  // The experimental section is gone from the v1.157 schema; everything else must still be declared.
  const old = homeserverConfig(plan('v1.135.0'))
  t.ok(validate(old), 'msc3861 variant valid', { errors: validate.errors })
  t.same(undeclared(schema, schema, old, '$', 4), ['$.experimental_features'])

  // The homeserver's own login (before 1.86.0), on PostgreSQL and on SQLite.
  for (const sqlite of [false, true]) {
    const own = homeserverConfig(
      makePlan({ ports: { mas: 18080, homeserver: 18008, postgres: 15432 }, masTag: 'latest', homeserverTag: '1.67.0', sqlite }),
    )
    t.ok(validate(own), `own-login variant valid (${sqlite ? 'SQLite' : 'PostgreSQL'})`, { errors: validate.errors })
    t.same(undeclared(schema, schema, own, '$', 4), [], 'no key unknown to the schema')
  }

  const bad = homeserverConfig(stable) as any
  bad.listeners[0].port = '8008'
  bad.matrix_authentication_service.enabled = 'yes'
  t.notOk(validate(bad), 'wrong types refused')
  t.equal(validate.errors?.length, 2)
})

t.test('homeserver config content', async (t) => {
  const p = plan('latest')
  const c = homeserverConfig(p) as any
  t.same(c.matrix_authentication_service, { enabled: true, endpoint: 'http://127.0.0.1:18080/', secret: p.matrixSecret })
  t.equal(c.experimental_features, undefined)
  t.equal(c.database.name, 'psycopg2')
  t.equal(c.database.args.port, 15432)
  t.equal(c.registration_shared_secret, p.homeserver.registrationSecret)
  t.equal(c.password_config.enabled, false, 'password login off, as delegation requires')
  for (const k of ['rc_message', 'rc_registration']) t.ok(c[k].per_second >= 100, `${k} raised`)
  t.ok(c.rc_login.address.per_second >= 100)
  t.same(c.listeners[0].bind_addresses, ['127.0.0.1'])
  t.match(p.homeserver.signingKey, /^ed25519 a_[A-Za-z0-9]{4} [A-Za-z0-9+/]{43}\n$/)

  const old = homeserverConfig(plan('1.130.0')) as any
  t.equal(old.matrix_authentication_service, undefined)
  t.equal(old.experimental_features.msc3861.enabled, true)
  t.equal(typeof old.experimental_features.msc3861.admin_token, 'string')
  t.equal(old.experimental_features.msc3861.issuer, 'http://127.0.0.1:18080/')
})

t.test("homeserver config content: the homeserver's own login", async (t) => {
  const p = plan('1.67.0')
  t.equal(p.delegation, 'none')
  const c = homeserverConfig(p) as any
  t.equal(c.matrix_authentication_service, undefined, 'no delegation section')
  t.equal(c.experimental_features, undefined, 'no experimental delegation either')
  t.equal(c.password_config.enabled, true, 'password login on: the fixtures log in with passwords')
  t.equal(c.enable_registration, false, 'registration only by the shared secret')
  t.equal(c.registration_shared_secret, p.homeserver.registrationSecret)
  t.equal(c.database.name, 'psycopg2')
  const lite = homeserverConfig(
    makePlan({ ports: { mas: 18080, homeserver: 18008, postgres: 15432 }, masTag: 'latest', homeserverTag: '1.67.0', sqlite: true }),
  ) as any
  t.same(lite.database, { name: 'sqlite3', args: { database: '/tmp/homeserver.db' } }, 'SQLite inside the container, gone with it')
  t.equal(homeserverConfig(plan('1.86.0')).experimental_features !== undefined, true, '1.86.0 delegates (msc3861)')
})

t.test('postgres init SQL and secrets', async (t) => {
  const p = plan('latest')
  t.match(
    postgresInitSql(p),
    /CREATE DATABASE "mas" OWNER "admin_conformance";\nCREATE DATABASE "synapse" .*LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;/,
  )
  const secrets = planSecrets(p)
  t.equal(new Set(secrets).size, secrets.length, 'all secrets distinct')
  for (const s of secrets) t.ok(s.length >= 24, 'long enough')
  const q = plan('latest')
  t.not(q.adminClient.secret, p.adminClient.secret, 'fresh secrets per plan')
})
