// GET /api/admin/v1/site-config: the plain SiteConfig object (no `data` wrapper), admin token required.
import type { Ctx, Reply } from '../core/context.ts'
import { masGate, type RouteEntry } from '../core/table.ts'
import { authenticate } from './framework/auth.ts'
import { masHas } from '../../lib/versions.ts'

export function getSiteConfig(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const registrationToken = false
  return {
    status: 200,
    body: {
      server_name: ctx.options.serverName,
      password_login_enabled: true,
      password_registration_enabled: true,
      password_registration_email_required: true,
      // since v1.19.0 (lib/data/mas-features.json); an unparsable claimed version counts as the newest
      ...(masHas(ctx.options.masVersion, 'site-config-registration-token-required') !== false
        ? { password_registration_token_required: registrationToken }
        : {}),
      // deprecated mirror of password_registration_token_required
      registration_token_required: registrationToken,
      email_change_allowed: true,
      displayname_change_allowed: true,
      password_change_allowed: true,
      account_recovery_allowed: true,
      account_deactivation_allowed: true,
      captcha_enabled: false,
      minimum_password_complexity: 3,
    },
  }
}

/** this family's row of the admin route table */
export const SITE_CONFIG_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/site-config',
    handler: getSiteConfig,
    ...masGate('site-config'),
    doc: {
      operationId: 'siteConfig',
      tag: 'server',
      summary: 'Get the site configuration',
      security: 'mas-admin',
      responses: { '200': { description: 'The site configuration (a plain object).', ref: 'admin/site-config#SiteConfig' } },
    },
  },
]
