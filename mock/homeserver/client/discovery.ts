// What a client asks the homeserver before signing in, as Synapse delegating authentication to the
// auth service answers (versions by lib/data/synapse-features.json):
// - GET /.well-known/matrix/client: {"m.homeserver": {"base_url"}} and, from v1.86.0,
//   "org.matrix.msc2965.authentication": {issuer, account};
// - GET {client}/unstable/org.matrix.msc2965/auth_issuer (v1.99.0): {issuer};
// - GET {client}/unstable/org.matrix.msc2965/auth_metadata (v1.123.0) and {client}/v1/auth_metadata
//   (v1.138.0): the auth service's server metadata.
// The auth service is the mock itself (the issuer is the base URL the client used), or the one of
// --hs-delegate-url when the mock stands for a homeserver only.
// - GET {client}/v3|r0/profile/{userId} (+ /displayname, /avatar_url), no authentication (Synapse's
//   default): an id that is not a user id → 400 M_INVALID_PARAM "Invalid user id"; a user that is
//   not local or has nothing to show → 404 M_NOT_FOUND "Profile was not found"; a local user that does
//   not exist → 404 M_UNKNOWN "No row found (profiles)" (recorded from Debian's 1.160.0).
import { hsError, type Ctx, type Reply, type Route } from '../../core/context.ts'
import { issuerOf, metadataOf } from '../../mas-http/issuer.ts'
import { synapseHas } from '../../../lib/versions.ts'

function issuer(ctx: Ctx): string {
  const delegated = ctx.options.hsDelegateUrl
  return delegated ? (delegated.endsWith('/') ? delegated : `${delegated}/`) : issuerOf(ctx)
}

function wellKnown(ctx: Ctx): Reply {
  const iss = issuer(ctx)
  const body: Record<string, unknown> = { 'm.homeserver': { base_url: issuerOf(ctx) } }
  if (synapseHas(ctx.options.hsVersion, 'well-known-msc2965-authentication') !== false) {
    body['org.matrix.msc2965.authentication'] = { issuer: iss, account: `${iss}account/` }
  }
  return { status: 200, body }
}

const USER_ID = /^@[^:]+:.+$/

function profileOf(ctx: Ctx): { user: { displayName: string | null } } | { reply: Reply } {
  const userId = ctx.params.userId ?? ''
  if (!USER_ID.test(userId)) return { reply: hsError(400, 'M_INVALID_PARAM', 'Invalid user id') }
  const user = ctx.world.hs.users.get(userId)
  ctx.log.queries += 1
  // An unknown local user has no profile row: the store's own error, as the real server answers it.
  if (!user) return { reply: hsError(404, 'M_UNKNOWN', 'No row found (profiles)') }
  return { user }
}

function profile(ctx: Ctx): Reply {
  const p = profileOf(ctx)
  if ('reply' in p) return p.reply
  if (p.user.displayName === null) return hsError(404, 'M_NOT_FOUND', 'Profile was not found')
  return { status: 200, body: { displayname: p.user.displayName } }
}

const field =
  (name: 'displayname' | 'avatar_url') =>
  (ctx: Ctx): Reply => {
    const p = profileOf(ctx)
    if ('reply' in p) return p.reply
    return { status: 200, body: { [name]: name === 'displayname' ? p.user.displayName : null } }
  }

export function discoveryRoutes(clientBase: string): Route[] {
  const area = 'hs' as const
  const metadata = (ctx: Ctx): Reply => ({ status: 200, body: metadataOf(issuer(ctx)) })
  const routes: Route[] = [
    { method: 'GET', pattern: '/.well-known/matrix/client', area, handler: wellKnown },
    {
      method: 'GET',
      pattern: `${clientBase}/unstable/org.matrix.msc2965/auth_issuer`,
      area,
      handler: (ctx) => ({ status: 200, body: { issuer: issuer(ctx) } }),
    },
    { method: 'GET', pattern: `${clientBase}/unstable/org.matrix.msc2965/auth_metadata`, area, handler: metadata },
    { method: 'GET', pattern: `${clientBase}/v1/auth_metadata`, area, handler: metadata },
  ]
  for (const v of ['r0', 'v3']) {
    routes.push(
      { method: 'GET', pattern: `${clientBase}/${v}/profile/:userId`, area, handler: profile },
      { method: 'GET', pattern: `${clientBase}/${v}/profile/:userId/displayname`, area, handler: field('displayname') },
      { method: 'GET', pattern: `${clientBase}/${v}/profile/:userId/avatar_url`, area, handler: field('avatar_url') },
    )
  }
  return routes
}
