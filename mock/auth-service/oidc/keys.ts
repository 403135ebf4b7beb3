// The signing key of the mock's ID tokens: one RSA key generated when the process first needs it
// (node:crypto), published at /oauth2/keys.json, used with RS256 (the service's default ID token
// algorithm). A restart gives a new key, as a rotated key would: clients fetch the JWKS again.
import { createHash, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto'

interface SigningKey {
  kid: string
  privateKey: KeyObject
  jwk: Record<string, unknown>
}

let key: SigningKey | undefined

function signingKey(): SigningKey {
  if (key) return key
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const pub = publicKey.export({ format: 'jwk' }) as { kty: string; n: string; e: string }
  // RFC 7638 thumbprint as the key id: stable for the key, different for the next one
  const kid = createHash('sha256')
    .update(JSON.stringify({ e: pub.e, kty: pub.kty, n: pub.n }))
    .digest('base64url')
    .slice(0, 16)
  key = { kid, privateKey, jwk: { kty: pub.kty, kid, use: 'sig', alg: 'RS256', n: pub.n, e: pub.e } }
  return key
}

/** GET /oauth2/keys.json: the public keys. */
export function jwks(): { keys: Record<string, unknown>[] } {
  return { keys: [signingKey().jwk] }
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

/** A compact JWS (RS256) of `claims`. */
export function signJwt(claims: Record<string, unknown>): string {
  const k = signingKey()
  const input = `${b64url({ alg: 'RS256', kid: k.kid })}.${b64url(claims)}`
  const signature = createSign('RSA-SHA256').update(input).sign(k.privateKey).toString('base64url')
  return `${input}.${signature}`
}

/** OIDC at_hash / c_hash for RS256: the left half of SHA-256, base64url. */
export function halfHash(value: string): string {
  return createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url')
}
