// Homeserver version (area B): GET <prefix>/admin/v1/server_version, which needs no token.
import {
  check,
  hs,
  target,
  expectOk,
  note,
  parseServerVersionString,
  setDefaultRule,
  setRule,
  hsFeature,
  hsFeatureRule,
  diag,
} from '../lib/suite.ts'

setDefaultRule('spec/interface.md, Endpoints > Area B; reference/synapse-admin-api.md §3 (server_version)')

const PATH = `${target.hs?.prefix ?? '/_synapse'}/admin/v1/server_version`

check('server_version: GET without a token → 200 matching the schema', ['hs-url'], async (t) => {
  expectOk(t, await hs('GET', '/server_version', { as: 'none' }), `GET ${PATH}`, { schema: 'homeserver/server-version' })
})

check('server_version: the version string parses and matches the run header', ['hs-url'], async (t) => {
  const body = expectOk<{ server_version: unknown }>(t, await hs('GET', '/server_version', { as: 'none' }), `GET ${PATH}`)
  if (!body) return
  const v = body.server_version
  t.ok(typeof v === 'string' && /^\d+\.\d+\.\d+/.test(v), 'server_version starts with a version number X.Y.Z', { server_version: v })
  const parsed = parseServerVersionString(v)
  if (parsed.ok) note(t, `homeserver ${parsed.raw}; version-dependent checks use it`)
  else note(t, `homeserver version ${String(v)} is not a plain release (${parsed.reason}); version-dependent checks run and say so`)
  if (target.versions?.hs) t.equal(v, target.versions.hs, 'the same version as the preflight printed in the header')
})

check('server_version: no python_version key since v1.94.0', ['hs-url'], async (t) => {
  const res = await hs('GET', '/server_version', { as: 'none' })
  const body = expectOk<Record<string, unknown>>(t, res, `GET ${PATH}`)
  if (!body) return
  // Each release is held to its own shape: python_version until v1.94.0, none since.
  setRule(await hsFeatureRule('server-version-python-version'))
  if (await hsFeature('server-version-python-version'))
    t.type(body.python_version, 'string', 'python_version is present before v1.94.0', diag(res))
  else t.notOk('python_version' in body, 'python_version is absent', diag(res))
})
