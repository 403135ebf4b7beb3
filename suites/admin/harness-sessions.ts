// Which sessions are behind the tokens the harness holds (--mas-token, --mas-user-token), so that write
// checks never finish one of them (that would log the harness, or the operator's user, out). Proven by
// RFC 7662 introspection of each token: the auth service names the token's user (sub) and client. The
// introspection needs a confidential client: one is registered for the run (POST /oauth2/registration,
// client_credentials only); the admin API cannot delete a client, so it is reported as left behind.
import { masRaw, memo, target, leftover, client } from '../lib/suite.ts'
import type { MasItem } from './listing/walk.ts'

export interface HeldSession {
  /** which token: admin or user */
  token: 'admin' | 'user'
  /** the token's user (the admin API's user_id), null for a client's own session */
  userId: string | null
  /** the OAuth 2.0 client of the token's session, or 'legacy' / null for a compatibility token */
  clientId: string | null
}

interface Registered {
  id: string
  secret: string
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString()
}

async function registerClient(): Promise<Registered | string> {
  const res = await masRaw('POST', '/oauth2/registration', {
    body: {
      client_name: `admin-conformance ${target.runId} (introspection of the harness's own tokens)`,
      client_uri: 'https://admin-conformance.invalid/',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  })
  const b = res.json as { client_id?: unknown; client_secret?: unknown } | undefined
  if (res.status !== 201 || typeof b?.client_id !== 'string' || typeof b.client_secret !== 'string') {
    return `registering a client to introspect the harness's tokens answered ${res.status}`
  }
  client.addSecret(b.client_secret)
  leftover({ target: 'mas', kind: 'oauth2-client', id: b.client_id, reason: 'registered to introspect the harness\'s own tokens; the admin API cannot delete a client' })
  return { id: b.client_id, secret: b.client_secret }
}

/**
 * The sessions behind the harness's tokens, or why they cannot be known (then write checks that end
 * compat or OAuth 2.0 sessions skip with that reason).
 */
export function heldSessions(): Promise<HeldSession[] | string> {
  return memo('mas:held-sessions', async () => {
    const reg = await registerClient()
    if (typeof reg === 'string') return reg
    const held: HeldSession[] = []
    for (const which of ['admin', 'user'] as const) {
      const token = which === 'admin' ? target.mas?.adminToken : target.mas?.userToken
      if (!token) continue
      const res = await masRaw('POST', '/oauth2/introspect', {
        rawBody: form({ token, client_id: reg.id, client_secret: reg.secret }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
      const b = res.json as { active?: unknown; sub?: unknown; client_id?: unknown } | undefined
      if (res.status !== 200 || typeof b?.active !== 'boolean') return `introspecting the ${which} token answered ${res.status}`
      if (!b.active) continue
      held.push({ token: which, userId: typeof b.sub === 'string' ? b.sub : null, clientId: typeof b.client_id === 'string' ? b.client_id : null })
    }
    return held
  })
}

/** Whether a session could be the one behind a harness token (same user and client; compat: same user). */
export function isHeld(item: MasItem, family: string, held: readonly HeldSession[]): boolean {
  const user = (item.attributes.user_id ?? null) as string | null
  return held.some((h) => {
    if (family === 'compat-sessions') return h.userId !== null && h.userId === user && (h.clientId === null || h.clientId === 'legacy')
    return h.userId === user && h.clientId === (item.attributes.client_id ?? null)
  })
}
