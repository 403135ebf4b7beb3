// The authorization grants between GET /authorize and the code exchange. They live in memory, one set
// per world (a reset starts empty), bounded like the browser maps: a grant is only good for 10
// minutes after consent anyway, so --state does not keep them (the sessions and tokens they produce
// are store records and are journaled).
import { randomBytes } from 'node:crypto'
import type { Ctx } from '../core/context.ts'
import type { MasStore, Micros } from '../store/mas/index.ts'

export type ResponseMode = 'query' | 'fragment' | 'form_post'

export interface AuthorizationGrant {
  readonly id: string
  readonly clientId: string
  readonly redirectUri: string
  /** the stored form: sorted, de-duplicated */
  readonly scope: string[]
  readonly state: string | null
  readonly nonce: string | null
  readonly responseMode: ResponseMode
  readonly code: string
  readonly pkce: { challenge: string; method: 'plain' | 'S256' } | null
  readonly createdAt: Micros
  /** the form value that proves a consent POST comes from the page the mock served */
  readonly csrf: string
  stage: 'pending' | 'fulfilled' | 'exchanged'
  browserSessionId: string | null
  fulfilledAt: Micros | null
  exchangedAt: Micros | null
  sessionId: string | null
}

const MAX_GRANTS = 100_000

export class OidcState {
  readonly grants = new Map<string, AuthorizationGrant>()
  readonly byCode = new Map<string, string>()
  /** access tokens that were used (introspected, userinfo): a double refresh is refused once its new token was used */
  readonly usedTokens = new Set<string>()

  add(g: AuthorizationGrant): void {
    this.grants.set(g.id, g)
    this.byCode.set(g.code, g.id)
    if (this.grants.size > MAX_GRANTS) {
      const oldest = this.grants.values().next().value as AuthorizationGrant
      this.grants.delete(oldest.id)
      this.byCode.delete(oldest.code)
    }
  }

  markUsed(token: string): void {
    this.usedTokens.add(token)
    if (this.usedTokens.size > MAX_GRANTS) this.usedTokens.delete(this.usedTokens.values().next().value as string)
  }
}

const states = new WeakMap<MasStore, OidcState>()

/** The grants of the request's world. */
export function oidcState(ctx: Ctx): OidcState {
  let s = states.get(ctx.world.mas)
  if (!s) states.set(ctx.world.mas, (s = new OidcState()))
  return s
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** 32 random alphanumerics, the service's authorization codes */
export function randomCode(): string {
  let s = ''
  for (const b of randomBytes(32)) s += ALNUM[b % ALNUM.length]
  return s
}
