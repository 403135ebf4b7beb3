// The seed's one pseudo-random generator. Every draw of the seeded world comes from it, on streams
// told apart by a salt, so the same seed gives the same world to the byte.

/** mulberry32 (tiny, fast, and good enough to pick seeded values) on the stream `seed ^ salt` */
export function seededRandom(seed: number, salt = 0): () => number {
  let a = (seed ^ salt) >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
