// All routes of the auth service side: the 16 endpoints of area A, the user endpoints and public
// OAuth 2.0 / compatibility-login endpoints the fixtures need. Handlers read the world from
// ctx.world (a reset swaps it), so the table is built once.
import type { Route } from '../core/context.ts'
import type { MockOptions } from '../core/options.ts'
import { finishCompatSession, getCompatSession, listCompatSessions } from './compat-sessions.ts'
import { login, loginFlows, logout, logoutAll } from '../auth-service/compat-login.ts'
import { introspect, register, revoke, token } from '../auth-service/oauth2.ts'
import { finishOAuth2Session, getOAuth2Session, listOAuth2Sessions } from './oauth2-sessions.ts'
import { createPersonalSession, getPersonalSession, listPersonalSessions, regeneratePersonalSession, revokePersonalSession } from './personal-sessions.ts'
import { getLatestPolicyData, getPolicyData, setPolicyData } from './policy-data.ts'
import { getSiteConfig } from './site-config.ts'
import { addUser, deactivateUser, getUser, getUserByUsername, listUsers, lockUser, reactivateUser, setUserAdmin, setUserPassword, unlockUser } from './users.ts'
import { getVersion } from './version.ts'

export function adminRoutes(options: MockOptions): Route[] {
  const v1 = '/api/admin/v1'
  const mas = (method: string, pattern: string, handler: Route['handler']): Route => ({ method, pattern: `${v1}${pattern}`, handler, area: 'mas' })
  const other = (method: string, pattern: string, handler: Route['handler']): Route => ({ method, pattern, handler, area: 'other' })
  const client = (method: string, pattern: string, handler: Route['handler']): Route[] =>
    ['v3', 'r0'].map((v) => ({ method, pattern: `${options.clientPrefix}/client/${v}${pattern}`, handler, area: 'hs' as const }))
  return [
    mas('GET', '/site-config', getSiteConfig),
    mas('GET', '/version', getVersion),
    mas('GET', '/compat-sessions', listCompatSessions),
    mas('GET', '/compat-sessions/:id', getCompatSession),
    mas('POST', '/compat-sessions/:id/finish', finishCompatSession),
    mas('GET', '/oauth2-sessions', listOAuth2Sessions),
    mas('GET', '/oauth2-sessions/:id', getOAuth2Session),
    mas('POST', '/oauth2-sessions/:id/finish', finishOAuth2Session),
    mas('GET', '/personal-sessions', listPersonalSessions),
    mas('POST', '/personal-sessions', createPersonalSession),
    mas('GET', '/personal-sessions/:id', getPersonalSession),
    mas('POST', '/personal-sessions/:id/revoke', revokePersonalSession),
    mas('POST', '/personal-sessions/:id/regenerate', regeneratePersonalSession),
    mas('POST', '/policy-data', setPolicyData),
    mas('GET', '/policy-data/latest', getLatestPolicyData),
    mas('GET', '/policy-data/:id', getPolicyData),
    mas('GET', '/users', listUsers),
    mas('POST', '/users', addUser),
    mas('GET', '/users/:id', getUser),
    mas('GET', '/users/by-username/:username', getUserByUsername),
    mas('POST', '/users/:id/set-password', setUserPassword),
    mas('POST', '/users/:id/set-admin', setUserAdmin),
    mas('POST', '/users/:id/deactivate', deactivateUser),
    mas('POST', '/users/:id/reactivate', reactivateUser),
    mas('POST', '/users/:id/lock', lockUser),
    mas('POST', '/users/:id/unlock', unlockUser),
    other('POST', '/oauth2/token', token),
    other('POST', '/oauth2/registration', register),
    other('POST', '/oauth2/introspect', introspect),
    other('POST', '/oauth2/revoke', revoke),
    ...client('GET', '/login', loginFlows),
    ...client('POST', '/login', login),
    ...client('POST', '/logout', logout),
    ...client('POST', '/logout/all', logoutAll),
  ]
}
