// GET|POST /oauth2/userinfo: the signed-in user of an OAuth 2.0 access token whose session has the
// `openid` scope: {sub: the user's ULID, username}. A missing, unknown, expired or revoked token, a
// session without openid, or one without a user: 401 with an empty body, as the service answers.
import type { Ctx, Reply } from '../../core/context.ts'
import { nowMicros } from '../../store/mas/index.ts'
import { bearerToken } from '../../mas-http/bearer.ts'
import { oidcState } from '../../mas-http/oidc-state.ts'

export function userinfo(ctx: Ctx): Reply {
  const got = bearerToken(ctx.headers.authorization)
  if ('error' in got) return { status: got.error === 'missing' ? 401 : 400 }
  ctx.log.queries += 2
  const info = ctx.world.mas.introspect(got.token, nowMicros(ctx.now()))
  if (!info.active || info.kind !== 'oauth2' || !info.user || !info.scope.split(' ').includes('openid')) return { status: 401 }
  oidcState(ctx).markUsed(got.token)
  ctx.log.requester = { kind: 'user', id: info.user.id, username: info.user.username }
  return { status: 200, body: { sub: info.user.id, username: info.user.username } }
}
