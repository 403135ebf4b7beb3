// CRC-32 (IEEE, the zlib polynomial): the checksum of the service's tokens and of the state journal's
// records. Node 20 has no zlib.crc32.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

export function crc32(s: string): number {
  let c = 0xffffffff
  for (let i = 0; i < s.length; i++) c = CRC_TABLE[(c ^ s.charCodeAt(i)) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}


/** CRC-32 of bytes (the journal's record checksum). */
export function crc32Bytes(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let c = 0xffffffff
  for (let i = from; i < to; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
