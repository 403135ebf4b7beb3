// The client API's token check when the mock is both services on one port: an access token of the
// auth service (OAuth 2.0, personal or compatibility session) is accepted as Synapse delegating to it
// accepts it, without the HTTP round trip: it must be active and carry the client-server API scope
// (urn:matrix:client:api:* or its MSC2967 form), the device is the one of its device scope, and
// urn:synapse:admin:* makes the user a server admin. Homeserver tokens, and every token when
// --hs-delegate-url points elsewhere, keep the Authenticator's path.
import { hsError, type Ctx } from '../../core/context.ts'
import { nowMicros } from '../../store/mas/index.ts'
import { oidcState } from '../../mas-http/oidc-state.ts'
import { Authenticator, tokenOf, type AuthOutcome } from '../framework/auth.ts'

const SCOPES_API = ['urn:matrix:client:api:*', 'urn:matrix:org.matrix.msc2967.client:api:*']

export class ClientAuthenticator extends Authenticator {
  override async authenticate(ctx: Ctx): Promise<AuthOutcome> {
    const got = tokenOf(ctx)
    if (ctx.options.hsDelegateUrl || 'reply' in got || ctx.world.hs.session(got.token)) return super.authenticate(ctx)
    const info = ctx.world.mas.introspect(got.token, nowMicros(ctx.now()))
    if (!info.active || !info.user) return super.authenticate(ctx)
    const scope = info.scope.split(' ')
    if (!SCOPES_API.some((s) => scope.includes(s))) return { ok: false, reply: hsError(401, 'M_UNKNOWN_TOKEN', "Token doesn't grant access to the Matrix C-S API", { soft_logout: false }) }
    oidcState(ctx).markUsed(got.token)
    const store = ctx.world.hs
    // The auth service provisions its users on the homeserver; the mock does it on first sight.
    const user = store.users.get(`@${info.user.username}:${store.serverName}`) ?? store.addUser(info.user.username, { createdTs: ctx.now().getTime() })
    return { ok: true, user, deviceId: info.deviceId, admin: scope.includes('urn:synapse:admin:*') }
  }
}
