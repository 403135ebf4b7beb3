// The CRC-32 of tokens and of the state journal's records is zlib's (node:zlib crc32). The values
// below were computed by the hand-written table implementation it replaced, so a token minted and a
// journal written before the change still check: the same inputs give the same checksums.
import t from 'tap'
import { crc32 } from 'node:zlib'
import { decodeJournal, encodeRecord, MAGIC } from '../../../mock/store/journal/codec.ts'
import { checkTokenFormat, tokenCrc } from '../../../mock/store/mas/domain/token.ts'

/** string → checksum of the former implementation (one byte per character, its low 8 bits) */
const FORMER: [string, number][] = [
  ['', 0x00000000],
  ['123456789', 0xcbf43926],
  ['mat_FHF5DbVzX0Uq2jWQYx8a4mXyX1Pp9r', 0x94fbde0b],
  ['ACSTATE1', 0x26b263e2],
  ['é€\u0100 naïve', 0xc949519b],
  ['The quick brown fox jumps over the lazy dog', 0x414fa339],
]
const RECORD = { t: 'mas.users.insert', value: { id: '01J00000000000000000ADM1N0', username: 'zoë' } }
const RECORD_CRC = 0xc801d7c8

function base62(n: number): string {
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
  let s = ''
  for (; n > 0; n = Math.floor(n / 62)) s += digits[n % 62]
  return s.padStart(6, '0')
}

t.test('token checksums are the former ones', async (t) => {
  for (const [s, v] of FORMER) {
    t.equal(crc32(Buffer.from(s, 'latin1')), v, `crc32 of ${JSON.stringify(s)}`)
    t.equal(tokenCrc(s), base62(v), `the token checksum of ${JSON.stringify(s)}`)
  }
  const base = FORMER[2]![0]
  t.same(
    checkTokenFormat(`${base}_${base62(FORMER[2]![1])}`),
    { ok: true, type: 'access' },
    'a token minted with the former checksum is well-formed',
  )
})

t.test('a journal record written with the former checksum loads', async (t) => {
  const payload = Buffer.from(JSON.stringify(RECORD), 'utf8')
  const frame = Buffer.alloc(8)
  frame.writeUInt32LE(payload.length, 0)
  frame.writeUInt32LE(RECORD_CRC, 4)
  const old = Buffer.concat([MAGIC, frame, payload])
  const decoded = decodeJournal(old)
  t.same(
    decoded.records.map((r) => r.value),
    [RECORD],
    'decoded whole',
  )
  t.equal(decoded.torn, undefined, 'nothing torn')
  t.equal(decoded.validLength, old.length, 'every byte valid')
  t.same(encodeRecord(RECORD), Buffer.concat([frame, payload]), 'and the record is written as before, byte for byte')
  const all = Buffer.alloc(256)
  for (let i = 0; i < 256; i++) all[i] = i
  t.equal(crc32(all), 0x29058c73, 'every byte value')
  const bad = Buffer.from(old)
  bad[bad.length - 2] = bad[bad.length - 2]! ^ 1
  t.equal(decodeJournal(bad).torn?.reason, 'checksum mismatch in the last record', 'a changed byte still fails the check')
})
