// The auth service's access and refresh tokens: `<prefix>_<30 base62>_<6-character CRC>`, how they
// are generated and how the service checks one before looking it up (with its error messages).
import { randomBytes } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { rustDebugQuote as rustDebug } from '../../../../lib/requestlog.ts'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The service's 6-character checksum: base62 digits least significant first, left-padded with '0'. */
export function tokenCrc(base: string): string {
  // one byte per character, as the token's alphabet is ASCII (latin1 keeps any other input's low byte)
  let n = crc32(Buffer.from(base, 'latin1'))
  let s = ''
  while (n > 0) {
    s += BASE62[n % 62]
    n = Math.floor(n / 62)
  }
  return s.padStart(6, '0')
}

/** A token in the service's format: `<prefix>_<30 alphanumerics>_<crc>`. */
export function generateToken(prefix: 'mat' | 'mar' | 'mct' | 'mcr' | 'mpt'): string {
  const bytes = randomBytes(30)
  let random = ''
  for (const b of bytes) random += BASE62[b % 62]
  const base = `${prefix}_${random}`
  return `${base}_${tokenCrc(base)}`
}

export type TokenFormatCheck =
  { ok: true; type: 'access' | 'refresh' | 'compat-access' | 'compat-refresh' | 'personal' } | { ok: false; error: string }

/** The service's token format check (prefix, lengths, checksum), with its error messages. */
export function checkTokenFormat(token: string): TokenFormatCheck {
  if (token.startsWith('syt_') || isLikelySynapseMacaroon(token)) return { ok: true, type: 'compat-access' }
  if (token.startsWith('syr_')) return { ok: true, type: 'compat-refresh' }
  const parts = token.split('_')
  if (parts.length !== 3) return { ok: false, error: 'invalid token format' }
  const [prefix, random, crc] = parts as [string, string, string]
  // Byte lengths, as the service counts them.
  if (Buffer.byteLength(prefix) !== 3 || Buffer.byteLength(random) !== 30 || Buffer.byteLength(crc) !== 6) {
    return { ok: false, error: 'invalid token format' }
  }
  const types = {
    mat: 'access',
    mar: 'refresh',
    mct: 'compat-access',
    syt: 'compat-access',
    mcr: 'compat-refresh',
    syr: 'compat-refresh',
    mpt: 'personal',
  } as const
  const type = (types as Record<string, (typeof types)[keyof typeof types]>)[prefix]
  if (!type) return { ok: false, error: `unknown token prefix ${rustDebug(prefix)}` }
  const canonical = { access: 'mat', refresh: 'mar', 'compat-access': 'mct', 'compat-refresh': 'mcr', personal: 'mpt' }[type]
  const expected = tokenCrc(`${canonical}_${random}`)
  if (crc !== expected) return { ok: false, error: `invalid crc ${rustDebug(crc)}, expected ${rustDebug(expected)}` }
  return { ok: true, type }
}

function isLikelySynapseMacaroon(token: string): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return false
  return Buffer.from(token, 'base64url').subarray(4, 13).toString('latin1') === 'location '
}
