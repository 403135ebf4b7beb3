// Site configuration (area A): GET /api/admin/v1/site-config.
import { setDefaultRule, check, mas, requireMasFeature, masFeature, expectOk, MAS_API } from '../lib/suite.ts'

setDefaultRule('spec/interface.md, Resources > SiteConfig; reference/mas-admin-api.md')

check('site-config: GET → 200 matching the site-config schema', ['mas'], async (t) => {
  await requireMasFeature(t, 'site-config')
  const res = await mas('GET', '/site-config')
  const body = expectOk<Record<string, unknown>>(t, res, `GET ${MAS_API}/site-config`, { schema: 'admin/site-config' })
  if (!body) return
  t.notOk('data' in body, 'a plain object, not wrapped in data')
  t.ok(typeof body.server_name === 'string' && body.server_name !== '', 'server_name is a non-empty string', {
    server_name: body.server_name,
  })
})

check('site-config: registration_token_required mirrors password_registration_token_required', ['mas'], async (t) => {
  await requireMasFeature(t, 'site-config')
  const res = await mas('GET', '/site-config')
  const body = expectOk<Record<string, unknown>>(t, res, `GET ${MAS_API}/site-config`)
  if (!body) return
  // The form the release has: the field exists since v1.19.0; before, only its deprecated mirror.
  if (!(await masFeature('site-config-registration-token-required'))) {
    t.notOk(
      'password_registration_token_required' in body,
      'no password_registration_token_required before v1.19.0 (registration_token_required alone)',
    )
    t.type(body.registration_token_required, 'boolean', 'registration_token_required is a boolean')
    return
  }
  t.ok('password_registration_token_required' in body, 'password_registration_token_required is there (since v1.19.0)')
  t.equal(body.registration_token_required, body.password_registration_token_required, 'the deprecated field has the same value')
})
