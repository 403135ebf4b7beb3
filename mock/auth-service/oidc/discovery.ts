// OpenID Connect discovery (GET /.well-known/openid-configuration) and the signing keys
// (GET /oauth2/keys.json). The metadata is mock/mas-http/issuer.ts (the delegating homeserver serves it too).
import type { Ctx, Reply } from '../../core/context.ts'
import { jwks } from './keys.ts'
import { issuerOf, metadataOf } from '../../mas-http/issuer.ts'

export function openidConfiguration(ctx: Ctx): Reply {
  return { status: 200, body: metadataOf(issuerOf(ctx)) }
}

export function keys(_ctx: Ctx): Reply {
  return { status: 200, body: jwks() }
}
