// The token endpoint's user grants, in the service's order and with its answers (v1.22):
// authorization_code — the client must have the grant (401 unauthorized_client); the code must
// exist and be consented, not exchanged, and not older than 10 minutes after consent (400
// invalid_grant; a code presented again more than 20 s after its exchange also ends the session it
// produced); the client must be the grant's (401 unauthorized_client); PKCE: a challenge without a
// verifier or the reverse is 400 invalid_request, a wrong verifier 400 invalid_grant "PKCE
// verification failed: …"; the browser session that consented must still be active. The
// redirect_uri of the request is not compared (the service does not either). Then an OAuth 2.0
// session of the user is created with exactly the grant's scope, with an access token (300 s), a
// refresh token, and an ID token when `openid` was asked.
// refresh_token — the client must have the grant (401 unauthorized_client); unknown token, ended
// session, another client's session: 400 invalid_grant. Rotation: the new pair replaces the old, the
// old access token is revoked and the old refresh token is consumed. Presenting a consumed one again
// is refused, except the service's "double refresh": when the pair it produced is still unused (its
// refresh token not consumed, its access token never introspected), that pair is revoked and a new
// one issued.
import { createHash } from 'node:crypto'
import type { Ctx, Reply } from '../../core/context.ts'
import { MasStore, nowMicros, type Client, type RefreshToken } from '../../store/mas/index.ts'
import { issuerOf } from '../../mas-http/issuer.ts'
import { halfHash, signJwt } from './keys.ts'
import { oidcState, type AuthorizationGrant } from '../../mas-http/oidc-state.ts'

export type OAuthError = (status: number, error: string, description?: string) => Reply

const CODE_LIFETIME_US = 10 * 60 * 1_000_000
const REPLAY_GRACE_US = 20 * 1_000_000

/** The service's PKCE check; the error text after "PKCE verification failed: ", or null when it holds. */
export function pkceError(pkce: NonNullable<AuthorizationGrant['pkce']>, verifier: string): string | null {
  if (verifier.length < 43) return 'code_verifier should be at least 43 characters long'
  if (verifier.length > 128) return 'code_verifier should be at most 128 characters long'
  if (!/^[A-Za-z0-9\-._~]+$/.test(verifier)) return 'code_verifier contains invalid characters'
  const computed = pkce.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier
  return computed === pkce.challenge ? null : 'challenge verification failed'
}

const OK_HEADERS = { 'cache-control': 'no-store', pragma: 'no-cache' }

export function authorizationCodeGrant(ctx: Ctx, client: Client, form: URLSearchParams, err: OAuthError, ttl: number): Reply {
  const code = form.get('code')
  if (code === null) return err(400, 'invalid_request')
  if (!client.grantTypes.includes('authorization_code')) return err(401, 'unauthorized_client')
  const state = oidcState(ctx)
  const store = ctx.world.mas
  const now = nowMicros(ctx.now())
  ctx.log.queries += 1
  const grant = state.grants.get(state.byCode.get(code) ?? '')
  if (!grant) return err(400, 'invalid_grant')
  if (grant.stage === 'exchanged') {
    if (now - grant.exchangedAt! > REPLAY_GRACE_US && grant.sessionId !== null) {
      const session = store.oauth2.get(grant.sessionId)
      if (session && session.finishedAt === null) store.finishOAuth2Session(session, now)
    }
    return err(400, 'invalid_grant')
  }
  if (grant.stage === 'pending' || now - grant.fulfilledAt! > CODE_LIFETIME_US) return err(400, 'invalid_grant')
  if (grant.clientId !== client.id) return err(401, 'unauthorized_client')
  const verifier = form.get('code_verifier')
  if ((grant.pkce === null) !== (verifier === null)) return err(400, 'invalid_request')
  if (grant.pkce && verifier !== null) {
    const failed = pkceError(grant.pkce, verifier)
    if (failed) return err(400, 'invalid_grant', `PKCE verification failed: ${failed}`)
  }
  const browser = store.getBrowserSession(grant.browserSessionId!)
  const user = browser ? store.getUser(browser.userId) : undefined
  if (!browser || browser.finishedAt !== null || !user || !MasStore.isUserActive(user)) return err(400, 'invalid_grant')
  const ua = ctx.headers['user-agent']
  const scope = grant.scope.join(' ')
  const issued = store.createOAuth2Session(
    {
      clientId: client.id,
      userId: user.id,
      userSessionId: browser.id,
      scope,
      userAgent: typeof ua === 'string' ? ua : null,
      withRefreshToken: true,
    },
    now,
    ttl,
  )
  grant.stage = 'exchanged'
  grant.exchangedAt = now
  grant.sessionId = issued.session.id
  ctx.log.queries += 4
  const body: Record<string, unknown> = { access_token: issued.token.value, refresh_token: issued.refresh!.value }
  if (grant.scope.includes('openid')) {
    const iat = Math.floor(now / 1_000_000)
    const claims: Record<string, unknown> = { iss: issuerOf(ctx), sub: user.id, aud: client.id, iat, exp: iat + 3600 }
    if (grant.nonce !== null) claims.nonce = grant.nonce
    claims.auth_time = Math.floor(browser.createdAt / 1_000_000)
    claims.at_hash = halfHash(issued.token.value)
    claims.c_hash = halfHash(grant.code)
    body.id_token = signJwt(claims)
  }
  Object.assign(body, { token_type: 'Bearer', expires_in: ttl, scope })
  return { status: 200, body, headers: OK_HEADERS }
}

export function refreshTokenGrant(ctx: Ctx, client: Client, form: URLSearchParams, err: OAuthError, ttl: number): Reply {
  const value = form.get('refresh_token')
  if (value === null) return err(400, 'invalid_request')
  if (!client.grantTypes.includes('refresh_token')) return err(401, 'unauthorized_client')
  const store = ctx.world.mas
  ctx.log.queries += 2
  const presented = store.lookupRefreshToken(value)
  if (!presented) return err(400, 'invalid_grant')
  const session = store.oauth2.get(presented.sessionId)
  if (!session || session.finishedAt !== null) return err(400, 'invalid_grant')
  if (session.clientId !== client.id) return err(400, 'invalid_grant')
  const revoke = [presented.accessToken]
  if (presented.revokedAt !== null) return err(400, 'invalid_grant')
  if (presented.consumedAt !== null) {
    const next: RefreshToken | undefined = presented.next === null ? undefined : store.lookupRefreshToken(presented.next)
    if (!next || next.consumedAt !== null || next.revokedAt !== null) return err(400, 'invalid_grant')
    if (oidcState(ctx).usedTokens.has(next.accessToken)) return err(400, 'invalid_grant')
    // a double refresh: the client lost the pair it was given; that pair is revoked, a new one issued
    revoke.push(next.accessToken, next.value)
  }
  const issued = store.refreshOAuth2Session(presented, revoke, nowMicros(ctx.now()), ttl)
  ctx.log.queries += 3
  return {
    status: 200,
    body: {
      access_token: issued.token.value,
      refresh_token: issued.refresh.value,
      token_type: 'Bearer',
      expires_in: ttl,
      scope: session.scope,
    },
    headers: OK_HEADERS,
  }
}
