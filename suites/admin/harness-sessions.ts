// Which sessions are behind the tokens the harness holds (--mas-token, --mas-user-token), so that write
// checks never finish one of them (that would log the harness, or the operator's user, out). Proven by
// RFC 7662 introspection of each token: the auth service names the token's user (sub) and client. The
// introspection needs a confidential client: the runner registers one for the run before the suites
// start (lib/introspection.ts); the admin API cannot delete a client, so it is reported as left behind.
import { masRaw, memo, target, leftover, client } from '../lib/suite.ts'
import type { MasItem } from './listing/walk.ts'
import { introspectionClientMetadata, INTROSPECTION_LEFTOVER_REASON, readRegistration } from '../../lib/introspection.ts'

export interface HeldSession {
  /** which token: admin or user */
  token: 'admin' | 'user'
  /** the token's user (the admin API's user_id), null for a client's own session */
  userId: string | null
  /** the OAuth 2.0 client of the token's session, or 'legacy' / null for a compatibility token */
  clientId: string | null
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString()
}

/** the runner's client for this run, or (a suite file run by hand) one registered now */
async function introspectionClient(): Promise<{ clientId: string; clientSecret: string } | string> {
  if (target.mas?.introspection) return target.mas.introspection
  const res = await masRaw('POST', '/oauth2/registration', { body: introspectionClientMetadata(target.runId) })
  const reg = readRegistration(res.status, res.json)
  if (typeof reg === 'string') return reg
  client.addSecret(reg.clientSecret)
  leftover({ target: 'mas', kind: 'oauth2-client', id: reg.clientId, reason: INTROSPECTION_LEFTOVER_REASON })
  return reg
}

/**
 * The sessions behind the harness's tokens, or why they cannot be known (then write checks that end
 * compat or OAuth 2.0 sessions skip with that reason).
 */
export function heldSessions(): Promise<HeldSession[] | string> {
  return memo('mas:held-sessions', async () => {
    const reg = await introspectionClient()
    if (typeof reg === 'string') return reg
    const held: HeldSession[] = []
    for (const which of ['admin', 'user'] as const) {
      const token = which === 'admin' ? target.mas?.adminToken : target.mas?.userToken
      if (!token) continue
      const res = await masRaw('POST', '/oauth2/introspect', {
        rawBody: form({ token, client_id: reg.clientId, client_secret: reg.clientSecret }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
      const b = res.json as { active?: unknown; sub?: unknown; client_id?: unknown } | undefined
      if (res.status !== 200 || typeof b?.active !== 'boolean') return `introspecting the ${which} token answered ${res.status}`
      if (!b.active) continue
      held.push({
        token: which,
        userId: typeof b.sub === 'string' ? b.sub : null,
        clientId: typeof b.client_id === 'string' ? b.client_id : null,
      })
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
