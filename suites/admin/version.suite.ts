// Version (area A): GET /api/admin/v1/version; the string is parsed and shown in the run header.
import { setDefaultRule, check, mas, target, requireMasFeature, parseServerVersionString, expectOk, note, MAS_API } from '../lib/suite.ts'

setDefaultRule('spec/interface.md, Resources > Version; reference/mas-admin-api.md')

check('version: GET → 200 matching the version schema', ['mas'], async (t) => {
  await requireMasFeature(t, 'version-endpoint')
  const res = await mas('GET', '/version')
  const body = expectOk<{ version: string }>(t, res, `GET ${MAS_API}/version`, { schema: 'admin/version' })
  if (!body) return
  t.notOk('data' in body, 'a plain object, not wrapped in data')
})

check('version: the version string parses as vX.Y.Z and matches the run header', ['mas'], async (t) => {
  await requireMasFeature(t, 'version-endpoint')
  const res = await mas('GET', '/version')
  const body = expectOk<{ version: unknown }>(t, res, `GET ${MAS_API}/version`)
  if (!body) return
  const v = body.version
  t.ok(typeof v === 'string' && /^v?\d+\.\d+\.\d+/.test(v), 'the version starts with a semantic version number', { version: v })
  const parsed = parseServerVersionString(v)
  if (parsed.ok) note(t, `auth service version ${parsed.raw}; version-dependent checks use it`)
  else note(t, `auth service version ${String(v)} is not a plain release (${parsed.reason}); version-dependent checks run and say so`)
  if (target.versions?.mas) t.equal(v, target.versions.mas, 'the same version as the preflight printed in the header')
})
