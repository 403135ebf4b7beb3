// ULIDs as the service's path and body extractors read them (the ulid crate's decoding: Crockford
// base32, either case, 26 characters), read by the admin API's query and path readers and by the JSON body reader.
import type { Ctx, Reply } from '../core/context.ts'
import { rejection } from './errors.ts'
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const DECODE = new Int8Array(128).fill(-1)
for (let i = 0; i < CROCKFORD.length; i++) {
  DECODE[CROCKFORD.charCodeAt(i)] = i
  DECODE[CROCKFORD.toLowerCase().charCodeAt(i)] = i
}

/** The canonical (upper-case) ULID, or the ulid crate's decode error. */
export function parseUlid(s: string): { ok: true; value: string } | { ok: false; error: 'invalid length' | 'invalid character' } {
  if (s.length !== 26 || Buffer.byteLength(s) !== 26) return { ok: false, error: 'invalid length' }
  let out = ''
  for (let i = 0; i < 26; i++) {
    const c = s.charCodeAt(i)
    const v = c < 128 ? DECODE[c]! : -1
    if (v < 0) return { ok: false, error: 'invalid character' }
    // 26 characters carry 130 bits; a u128 keeps the low 128, so the first character keeps 3 bits.
    out += CROCKFORD[i === 0 ? v & 7 : v]
  }
  return { ok: true, value: out }
}

/** The path-ULID extractor: 400 "Invalid ULID in path" + the decode error; no event line. */
export function pathId(ctx: Ctx, raw: string | undefined): { ok: true; id: string } | { ok: false; reply: Reply } {
  const u = parseUlid(raw ?? '')
  if (!u.ok) return { ok: false, reply: rejection(ctx, 400, 'Invalid ULID in path', u.error) }
  return { ok: true, id: u.value }
}
