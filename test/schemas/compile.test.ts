// Every schema file loads and every shape compiles in strict mode; refs and error texts behave.
import t from 'tap'
import {
  compileSchema,
  COMPAT_SESSION_STATUSES,
  EVENT_REPORT_DIRECTIONS,
  INCLUDE_COUNT_VALUES,
  isValid,
  listSchemaFiles,
  listSchemaRefs,
  OAUTH2_CLIENT_KINDS,
  OAUTH2_SESSION_STATUSES,
  PERSONAL_SESSION_STATUSES,
  schemaFor,
  schemaLoadProblems,
  schemaName,
  validate,
} from '../../lib/schemas.ts'

t.test('all schema files load without problems', async (t) => {
  t.same(schemaLoadProblems(), [])
  const files = listSchemaFiles()
  for (const f of [
    'admin/common',
    'admin/envelope',
    'admin/error',
    'admin/site-config',
    'admin/version',
    'admin/compat-session',
    'admin/oauth2-session',
    'admin/personal-session',
    'admin/policy-data',
    'homeserver/event-report',
    'homeserver/server-version',
    'homeserver/error',
    'homeserver/background-updates',
    'homeserver/client-report',
  ]) {
    t.ok(files.includes(f), `${f} is loaded`)
  }
})

t.test('every ref compiles in strict mode', async (t) => {
  const refs = listSchemaRefs()
  t.ok(refs.length > 50, 'there are many refs')
  for (const ref of refs) t.doesNotThrow(() => compileSchema(ref), ref)
})

t.test('each of our files has a $id and named $defs', async (t) => {
  for (const f of listSchemaFiles().filter((k) => k.startsWith('admin/') || k.startsWith('homeserver/'))) {
    const doc = schemaFor(f)
    t.match(doc.$id, /^https:\/\/admin-conformance\.invalid\/schemas\//, `${f} $id`)
    t.equal(doc.$schema, 'https://json-schema.org/draft/2020-12/schema', `${f} dialect`)
    t.ok(Object.keys(doc.$defs as object).length > 0, `${f} has $defs`)
  }
})

t.test('refs: root, def, unknown', async (t) => {
  t.ok(validate('admin/error', { errors: [{ title: 'x' }] }).valid, 'a root ref')
  t.ok(validate('admin/error#Error', { errors: [{ title: 'x' }] }).valid, 'the def behind the root')
  t.ok(validate('admin/error.json', { errors: [{ title: 'x' }] }).valid, 'the .json suffix is tolerated')
  t.throws(() => validate('admin/nope#X', {}), /unknown schema file 'admin\/nope'/)
  t.throws(() => validate('admin/compat-session#Nope', {}), /has no \$defs entry 'Nope'.*Attributes/)
  t.throws(() => validate('', {}), TypeError)
})

t.test('the text names the instance path and the exact schema path', async (t) => {
  const r = validate('admin/compat-session#Page', {
    data: [
      {
        type: 'compat-session',
        id: 'not-a-ulid',
        attributes: {},
        links: { self: '/api/admin/v1/compat-sessions/x' },
        meta: { page: { cursor: 'x' } },
      },
    ],
    links: { self: '/api/admin/v1/compat-sessions' },
  })
  t.equal(r.valid, false)
  t.notMatch(r.text, /\n/, 'one line')
  t.match(r.text, /^admin\/compat-session#Page: /)
  t.match(r.text, '/data/0/id must match pattern')
  t.match(r.text, '[admin/common.json#/$defs/ULID/pattern]')
  t.match(r.text, /\(\+\d+ more\)$/, 'long lists are cut')
  const required = r.errors.find((e) => e.message.includes("'user_id'"))
  t.same(
    required,
    {
      instancePath: '/data/0/attributes',
      schemaPath: 'admin/compat-session.json#/$defs/Attributes/required',
      message: "must have required property 'user_id'",
    },
    'the schema path is that of the referenced def, not of the referencing one',
  )
  t.same(validate('admin/version', { version: 'v1.0.0' }), { valid: true, errors: [], errorCount: 0, text: 'valid' })
})

t.test('error messages never echo values (tokens are secrets)', async (t) => {
  const secret = 'mpt_FM44zJN5qePGMLvvMXC4Ds1A3lCWc6_bJ9Wj1'
  const r = validate('admin/personal-session#AccessToken', `${secret}x`)
  t.equal(r.valid, false)
  t.notMatch(r.text, secret)
  t.notMatch(JSON.stringify(r.errors), secret)
})

t.test('isValid narrows', async (t) => {
  const value: unknown = { version: 'v1.2.3' }
  if (isValid('admin/version', value)) t.equal(value.version, 'v1.2.3')
  else t.fail('should be valid')
})

t.test('enum constants are read from the schemas', async (t) => {
  t.same(COMPAT_SESSION_STATUSES, ['active', 'finished'])
  t.same(OAUTH2_SESSION_STATUSES, ['active', 'finished'])
  t.same(PERSONAL_SESSION_STATUSES, ['active', 'revoked'])
  t.same(OAUTH2_CLIENT_KINDS, ['dynamic', 'static'])
  t.same(INCLUDE_COUNT_VALUES, ['true', 'false', 'only'])
  t.same(EVENT_REPORT_DIRECTIONS, ['b', 'f'])
  t.ok(Object.isFrozen(COMPAT_SESSION_STATUSES))
  t.same(schemaFor('admin/compat-session#Status').enum, COMPAT_SESSION_STATUSES)
})

t.test('schema JSON is frozen so callers cannot change the validators', async (t) => {
  const s = schemaFor('admin/common#ULID')
  t.ok(Object.isFrozen(s))
})

t.test('flat names', async (t) => {
  t.equal(schemaName('admin/compat-session#Attributes'), 'CompatSessionAttributes')
  t.equal(schemaName('admin/oauth2-session#Single'), 'OAuth2SessionSingle')
  t.equal(schemaName('admin/site-config#SiteConfig'), 'SiteConfig')
  t.equal(schemaName('admin/site-config'), 'SiteConfig')
  t.equal(schemaName('admin/error'), 'AdminError')
  t.equal(schemaName('homeserver/error'), 'HomeserverError')
  t.equal(schemaName('admin/common#ULID'), 'AdminCommonULID')
  t.equal(schemaName('homeserver/event-report#ListItem'), 'EventReportListItem')
})
