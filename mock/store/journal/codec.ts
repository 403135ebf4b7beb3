// The state journal's file format. An 8-byte magic, then records, each one frame:
//
//   u32 LE payload length | u32 LE CRC-32 of the payload (zlib's, IEEE) | payload (UTF-8 JSON)
//
// The first record is the header (what world the journal belongs to), every later one a write.
// A batch of records goes to the file in one write() and is fdatasync'ed before any answer that
// depends on it leaves, so a crash can only leave a prefix of the last batch: decoding tells such a
// torn tail (it runs to the end of the file) from damage earlier in the file (an error naming the
// offset of the bad record), and never hands back half a record.
import { crc32 } from 'node:zlib'

export const MAGIC = Buffer.from('ACSTATE1', 'latin1')
const FRAME = 8
/** larger than any write the mock accepts (bodies are capped far below) */
export const MAX_RECORD = 256 * 1024 * 1024

export class JournalCorruptError extends Error {
  constructor(
    readonly offset: number,
    reason: string,
  ) {
    super(`corrupt record at byte offset ${offset}: ${reason}`)
  }
}

/** One record as bytes. Throws (before anything is written) when the value cannot be serialised. */
export function encodeRecord(value: unknown): Buffer {
  const json = JSON.stringify(value)
  const out = Buffer.allocUnsafe(FRAME + Buffer.byteLength(json))
  const n = out.write(json, FRAME, 'utf8')
  out.writeUInt32LE(n, 0)
  out.writeUInt32LE(crc32(out.subarray(FRAME, FRAME + n)), 4)
  return out
}

export interface Decoded {
  /** the parsed records, header first */
  records: { offset: number; value: unknown }[]
  /** bytes of whole, valid records (with the magic): where the next record goes */
  validLength: number
  /** a torn last record that was dropped, if any */
  torn?: { offset: number; bytes: number; reason: string }
}

function allZero(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 0) return false
  return true
}

/** Decodes a whole journal file. Throws JournalCorruptError for damage before the last record. */
export function decodeJournal(buf: Buffer): Decoded {
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new JournalCorruptError(0, 'not a state journal (bad magic)')
  }
  const records: Decoded['records'] = []
  let offset = MAGIC.length
  const torn = (reason: string): Decoded => ({ records, validLength: offset, torn: { offset, bytes: buf.length - offset, reason } })
  while (offset < buf.length) {
    // A crash mid-append leaves a prefix of the frame, or (on some file systems) zeros past the data.
    if (buf.length - offset < FRAME) return torn('incomplete frame header')
    const n = buf.readUInt32LE(offset)
    const crc = buf.readUInt32LE(offset + 4)
    const end = offset + FRAME + n
    if (n === 0 || n > MAX_RECORD) {
      if (allZero(buf, offset)) return torn('zero-filled tail')
      throw new JournalCorruptError(offset, `impossible record length ${n}`)
    }
    if (end > buf.length) return torn(`record of ${n} bytes cut at ${buf.length - offset - FRAME}`)
    if (crc32(buf.subarray(offset + FRAME, end)) !== crc) {
      if (end === buf.length) return torn('checksum mismatch in the last record')
      throw new JournalCorruptError(offset, 'checksum mismatch')
    }
    let value: unknown
    try {
      value = JSON.parse(buf.toString('utf8', offset + FRAME, end))
    } catch (e) {
      throw new JournalCorruptError(offset, `checksum holds but the payload is not JSON (${(e as Error).message})`)
    }
    records.push({ offset, value })
    offset = end
  }
  return { records, validLength: offset }
}
