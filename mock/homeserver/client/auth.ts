// The token check of the homeserver's client and admin APIs when the mock is both services on one port:
// an access token of the auth service (OAuth 2.0, personal or compatibility session) is accepted as
// Synapse delegating to it accepts it (synapse/api/auth/mas.py, read in Debian's 1.160.0), without the
// HTTP round trip, from the release that brought delegation (v1.86.0): it must be active and carry the
// client-server API scope (the MSC2967 form; urn:matrix:client:api:* from v1.138.0), else 401
// M_UNKNOWN_TOKEN "Token doesn't grant access to the Matrix C-S API"; the device is the one of its
// device scope, and urn:synapse:admin:* makes it a server admin (is_server_admin reads the scope alone).
// The homeserver's own tokens keep working; one of a user whom the auth service has locked or
// deactivated is refused as the auth service's introspection refuses it ("Token is not active").
// Every token, when --hs-delegate-url points elsewhere, keeps the Authenticator's path.
import { hsError, type Ctx } from '../../core/context.ts'
import { MasStore, nowMicros } from '../../store/mas/index.ts'
import { oidcState } from '../../mas-http/oidc-state.ts'
import { Authenticator, tokenOf, type AuthOutcome } from '../framework/auth.ts'
import { hsHas } from '../framework/version.ts'

const SCOPE_API_UNSTABLE = 'urn:matrix:org.matrix.msc2967.client:api:*'
const SCOPE_API_STABLE = 'urn:matrix:client:api:*'
const SCOPE_ADMIN = 'urn:synapse:admin:*'

export class ClientAuthenticator extends Authenticator {
  override async authenticate(ctx: Ctx): Promise<AuthOutcome> {
    const got = tokenOf(ctx)
    if (ctx.options.hsDelegateUrl || 'reply' in got) return super.authenticate(ctx)
    const store = ctx.world.hs
    const local = store.session(got.token)
    if (local) {
      // One identity world: the homeserver user is the auth service's user of the same username.
      const user = store.users.get(local.userId)
      const mas = user ? ctx.world.mas.findUserByUsername(user.localpart) : undefined
      if (mas && !MasStore.isUserActive(mas))
        return { ok: false, reply: hsError(401, 'M_UNKNOWN_TOKEN', 'Token is not active', { soft_logout: false }) }
      return super.authenticate(ctx)
    }
    if (!hsHas(ctx.options, 'delegated-auth')) return super.authenticate(ctx)
    const info = ctx.world.mas.introspect(got.token, nowMicros(ctx.now()))
    if (!info.active || !info.user) return super.authenticate(ctx)
    const scope = info.scope.split(' ')
    const api =
      scope.includes(SCOPE_API_UNSTABLE) || (hsHas(ctx.options, 'delegated-auth-stable-scopes') && scope.includes(SCOPE_API_STABLE))
    if (!api)
      return {
        ok: false,
        reply: hsError(401, 'M_UNKNOWN_TOKEN', "Token doesn't grant access to the Matrix C-S API", { soft_logout: false }),
      }
    oidcState(ctx).markUsed(got.token)
    // The auth service provisions its users on the homeserver; the mock does it on first sight (display
    // name: the localpart, as Synapse registers it).
    const user =
      store.users.get(`@${info.user.username}:${store.serverName}`) ??
      store.addUser(info.user.username, { displayName: info.user.username, createdTs: ctx.now().getTime() })
    const admin = scope.includes(SCOPE_ADMIN) || ctx.faults.has('hs-auth-delegated-admin-without-scope')
    return { ok: true, user, deviceId: info.deviceId, admin }
  }
}
