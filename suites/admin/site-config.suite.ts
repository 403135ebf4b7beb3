// Site configuration (area A): GET /api/admin/v1/site-config.
import { setDefaultRule, check, mas, requireMasFeature, expectOk, MAS_API } from '../lib/suite.ts'

setDefaultRule('spec/interface.md, Resources > SiteConfig; reference/mas-admin-api.md')

check('site-config: GET → 200 matching the site-config schema', ['mas'], async (t) => {
  await requireMasFeature(t, 'site-config')
  const res = await mas('GET', '/site-config')
  const body = expectOk<Record<string, unknown>>(t, res, `GET ${MAS_API}/site-config`, { schema: 'admin/site-config' })
  if (!body) return
  t.notOk('data' in body, 'a plain object, not wrapped in data')
  t.ok(typeof body.server_name === 'string' && body.server_name !== '', 'server_name is a non-empty string', { server_name: body.server_name })
})

check('site-config: registration_token_required mirrors password_registration_token_required', ['mas'], async (t) => {
  await requireMasFeature(t, 'site-config')
  const res = await mas('GET', '/site-config')
  const body = expectOk<Record<string, unknown>>(t, res, `GET ${MAS_API}/site-config`)
  if (!body) return
  if (!('password_registration_token_required' in body)) {
    t.pass('the target has no password_registration_token_required; nothing to compare', { skip: 'field absent' })
    return
  }
  t.equal(body.registration_token_required, body.password_registration_token_required, 'the deprecated field has the same value')
})
