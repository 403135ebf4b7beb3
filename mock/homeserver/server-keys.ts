// The server's signing keys (synapse/rest/key/v2/local_key_resource.py LocalKey, read in Debian's
// matrix-synapse 1.160.0): GET /_matrix/key/v2/server (and the deprecated /server/{keyId}, same answer),
// no authentication. synadm and other admin tools read the server name from it. The body is signed
// with a real ed25519 key (derived from the seed and this start's token secret, so the same world has the
// same key), valid for the real default key_refresh_interval of one day and renewed after half of it.
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto'
import type { Ctx, Reply, Route } from '../core/context.ts'
import type { HomeserverStore } from '../store/homeserver/index.ts'

const REFRESH_MS = 24 * 60 * 60 * 1000
/** PKCS#8 DER prefix of a raw 32-byte ed25519 private key */
const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex')

/** Canonical JSON of the Matrix spec: keys sorted, no insignificant whitespace, UTF-8. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`
}

const unpadded = (b: Buffer) => b.toString('base64').replace(/=+$/, '')

interface Keys {
  key: KeyObject
  publicKey: string
  body: Record<string, unknown>
  validUntil: number
}
const cache = new WeakMap<HomeserverStore, Keys>()

function keysOf(ctx: Ctx): Keys {
  const store = ctx.world.hs
  let k = cache.get(store)
  const now = Date.now()
  if (!k) {
    const seed = createHash('sha256')
      .update(`admin-conformance signing key\u0000${store.serverName}\u0000${ctx.options.seed}\u0000${ctx.options.tokenSecret ?? ''}`)
      .digest()
    const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8, seed]), format: 'der', type: 'pkcs8' })
    const publicKey = unpadded(Buffer.from((key.export({ format: 'jwk' }) as { x: string }).x, 'base64url'))
    k = { key, publicKey, body: {}, validUntil: 0 }
    cache.set(store, k)
  }
  if (now + REFRESH_MS / 2 > k.validUntil) {
    k.validUntil = now + REFRESH_MS
    const unsigned = {
      valid_until_ts: k.validUntil,
      server_name: store.serverName,
      verify_keys: { [store.signingKeyId]: { key: k.publicKey } },
      old_verify_keys: {},
    }
    const sig = sign(null, Buffer.from(canonicalJson(unsigned)), k.key)
    k.body = { ...unsigned, signatures: { [store.serverName]: { [store.signingKeyId]: unpadded(sig) } } }
  }
  return k
}

export function serverKeyRoutes(prefix: string): Route[] {
  const handler = (ctx: Ctx): Reply => {
    const { body } = keysOf(ctx)
    if (!ctx.faults.has('server-keys-bad-signature')) return { status: 200, body }
    const store = ctx.world.hs
    return { status: 200, body: { ...body, signatures: { [store.serverName]: { [store.signingKeyId]: unpadded(Buffer.alloc(64)) } } } }
  }
  return [
    { method: 'GET', pattern: `${prefix}/key/v2/server`, area: 'hs', handler },
    { method: 'GET', pattern: `${prefix}/key/v2/server/:keyId?`, area: 'hs', handler },
  ]
}
