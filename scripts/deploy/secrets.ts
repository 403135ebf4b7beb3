// Secrets and keys for a throwaway deployment, made fresh for every run with node:crypto.
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { ulid } from 'ulidx'

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Random alphanumeric string (no characters that need quoting in URLs, YAML or shells). */
export function randomAlnum(length = 32): string {
  // Rejection sampling keeps the distribution uniform over the 62 characters.
  let s = ''
  while (s.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && s.length < length) s += ALNUM[b % 62]
    }
  }
  return s
}

/** A ULID, the form the auth service requires for static client IDs. */
export function newClientId(): string {
  return ulid()
}

/** 32 random bytes as 64 hex characters: the auth service's `secrets.encryption`. */
export function encryptionSecret(): string {
  return randomBytes(32).toString('hex')
}

export interface SigningKey {
  kid: string
  /** PEM text of the private key */
  key: string
}

/** Signing keys for the auth service: RSA (for RS256, the default ID token algorithm) and EC P-256. */
export function authServiceKeys(): SigningKey[] {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return [
    { kid: randomAlnum(10), key: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() },
    { kid: randomAlnum(10), key: ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString() },
  ]
}

/** The homeserver's signing key file: one line `ed25519 <key id> <unpadded base64 of the 32-byte seed>`. */
export function homeserverSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ed25519')
  // The PKCS#8 DER of an Ed25519 key ends with the 32-byte seed.
  const der = privateKey.export({ type: 'pkcs8', format: 'der' })
  const seed = der.subarray(der.length - 32)
  return `ed25519 a_${randomAlnum(4)} ${seed.toString('base64').replace(/=+$/, '')}\n`
}
