// The pieces of the real-Synapse launcher that need no running server: the dist-info METADATA written
// from pyproject.toml (Synapse's start-up dependency check reads it) and the access-log parser that
// proves what a run sent.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dependencies, distMetadata, extras, pep440 } from '../fixtures/synapse/metadata.ts'
import { parseAccessLines, tarballPath } from '../fixtures/synapse/launcher.ts'

t.test('Poetry constraints as PEP 440', async (t) => {
  t.equal(pep440('^1.5.0'), '>=1.5.0,<2.0.0')
  t.equal(pep440('^0.2.3'), '>=0.2.3,<0.3.0')
  t.equal(pep440('^0.0.3'), '>=0.0.3,<0.0.4')
  t.equal(pep440('>=1,!=2.1.2'), '>=1,!=2.1.2')
  t.equal(pep440('*'), '')
})

const PYPROJECT = `[tool.poetry]
name = "matrix-synapse"
version = "9.8.7"

[tool.poetry.dependencies]
python = "^3.7.1"
# a comment
jsonschema = ">=3.0.0"
canonicaljson = "^1.5.0"
Twisted = {extras = ["tls"], version = ">=18.9.0"}
importlib_metadata = { version = ">=1.4", python = "<3.8" }
psycopg2 = { version = ">=2.8", markers = "platform_python_implementation != 'PyPy'", optional = true }
hiredis = { version = "*", optional = true }
lonely = { version = ">=1", optional = true }

[tool.poetry.extras]
postgres = ["psycopg2"]
redis = ["txredisapi", "hiredis"]
all = [
    # postgres
    "psycopg2",
]

[tool.poetry.dev-dependencies]
mypy = "*"
`

t.test('METADATA from a pyproject.toml', async (t) => {
  t.same(dependencies(PYPROJECT).map((d) => d.name), ['jsonschema', 'canonicaljson', 'Twisted', 'importlib_metadata', 'psycopg2', 'hiredis', 'lonely'])
  t.same([...extras(PYPROJECT).keys()], ['postgres', 'redis', 'all'])
  const meta = distMetadata(PYPROJECT).split('\n')
  t.same(meta.slice(0, 3), ['Metadata-Version: 2.1', 'Name: matrix-synapse', 'Version: 9.8.7'])
  for (const line of [
    'Provides-Extra: postgres',
    'Provides-Extra: all',
    'Requires-Dist: jsonschema (>=3.0.0)',
    'Requires-Dist: canonicaljson (>=1.5.0,<2.0.0)',
    'Requires-Dist: Twisted[tls] (>=18.9.0)',
    'Requires-Dist: importlib_metadata (>=1.4) ; python_version < "3.8"',
    'Requires-Dist: psycopg2 (>=2.8) ; (extra == "postgres" or extra == "all")',
    'Requires-Dist: hiredis ; extra == "redis"',
  ]) t.ok(meta.includes(line), line)
  t.notOk(meta.some((l) => l.includes('lonely')), 'an optional dependency in no extra is never required')
  t.notOk(meta.some((l) => l.includes('mypy')), 'dev dependencies are not runtime requirements')
})

const tarball = tarballPath()
t.test('METADATA of the real Synapse 1.67.0', { skip: !existsSync(tarball) && `${tarball} is missing` }, async (t) => {
  const r = spawnSync('tar', ['-xzOf', tarball, 'synapse-1.67.0/pyproject.toml'], { encoding: 'utf8' })
  t.equal(r.status, 0, 'pyproject.toml read from the tarball')
  const meta = distMetadata(r.stdout)
  t.match(meta, /^Version: 1\.67\.0$/m)
  // Every mandatory dependency of that release, as required at start-up.
  for (const name of ['jsonschema', 'frozendict', 'unpaddedbase64', 'canonicaljson', 'signedjson', 'service-identity', 'Twisted[tls]', 'treq', 'pyOpenSSL', 'PyYAML', 'pyasn1', 'pyasn1-modules', 'bcrypt', 'Pillow', 'sortedcontainers', 'pymacaroons', 'msgpack', 'phonenumbers', 'prometheus-client', 'attrs', 'netaddr', 'Jinja2', 'bleach', 'typing-extensions', 'cryptography', 'ijson', 'matrix-common', 'packaging', 'pydantic']) {
    t.match(meta, new RegExp(`^Requires-Dist: ${name.replace(/[[\]]/g, '\\$&')} \\([^)]+\\)$`, 'm'), name)
  }
  t.match(meta, /^Requires-Dist: matrix-common \(>=1\.2\.1,<2\.0\.0\)$/m)
})

t.test('access lines of Synapse 1.67.0', async (t) => {
  const text = [
    '2026-11-24 01:03:36,456 - synapse.access.http.18008 - 450 - INFO - POST-5 - 127.0.0.1 - 18008 - {None} Processed request: 0.003sec/0.000sec (0.001sec, 0.000sec) (0.000sec/0.000sec/0) 59B 400 "POST /_synapse/admin/v1/server_version HTTP/1.1" "curl/7.88.1" [0 dbevts]',
    '2026-11-24 01:03:37,124 - synapse.storage.background_updates - 428 - INFO - background_updates-0 - Starting update batch',
    '2026-11-24 01:06:20,001 - synapse.access.http.33095 - 450 - INFO - GET-35 - 127.0.0.1 - 33095 - {@admin:localhost} Processed request: 0.010sec/0.000sec (0.004sec, 0.000sec) (0.001sec/0.002sec/2) 1234B 200! "GET /_synapse/admin/v1/event_reports?access_token=<redacted>&limit=1 HTTP/1.1" "admin-conformance/0.1.0 run/20261124T010618Z-c34c0f" [3 dbevts]',
    '2026-11-24 01:06:21,001 - synapse.access.http.33095 - 450 - INFO - DELETE-36 - 127.0.0.1 - 33095 - {None} Processed request: 0.001sec/0.000sec (0.001sec, 0.000sec) (0.000sec/0.000sec/0) 59B 400 "DELETE /_synapse/admin/v1/event_reports/1 HTTP/1.1" "-" [0 dbevts]',
  ].join('\n')
  t.same(parseAccessLines(text), [
    { requestId: 'POST-5', requester: 'None', status: 400, method: 'POST', uri: '/_synapse/admin/v1/server_version', userAgent: 'curl/7.88.1' },
    { requestId: 'GET-35', requester: '@admin:localhost', status: 200, method: 'GET', uri: '/_synapse/admin/v1/event_reports?access_token=<redacted>&limit=1', userAgent: 'admin-conformance/0.1.0 run/20261124T010618Z-c34c0f' },
    { requestId: 'DELETE-36', requester: 'None', status: 400, method: 'DELETE', uri: '/_synapse/admin/v1/event_reports/1', userAgent: '-' },
  ])
})
