// The seeded randomness of the auth service's world: the seed's generator (../random.ts) seeded from
// the options' faker, and the draws every seeding step shares. Steps draw in a fixed order (see
// ./index.ts), so the same seed gives the same world to the byte.
import type { Faker } from '@faker-js/faker'
import type { Micros } from '../../store/mas/index.ts'
import { seededRandom } from '../random.ts'

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

const B32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const B32_CODES = Array.from(B32, (c) => c.charCodeAt(0))
const TIME_MAX = 2 ** 48 - 1

/**
 * ulidx's monotonicFactory, draw for draw (the same ids for the same PRNG), written straight into
 * 26 character codes: ulidx concatenates characters into a tree of 25 string pieces (~230 bytes)
 * that had to be copied flat afterwards, which cost a fifth of seeding a million sessions.
 * Random characters are drawn last-first, as ulidx prepends them; an id in the same millisecond
 * (or earlier) as the last one is the last one's random part plus one.
 */
export function monotonicUlid(random: () => number): (ms: number) => string {
  const codes = new Array<number>(26).fill(0)
  const digits = new Array<number>(16).fill(0)
  let lastTime = 0
  return (ms) => {
    if (ms <= lastTime) {
      let i = 15
      for (; i >= 0 && digits[i] === 31; i--) digits[i] = 0
      if (i < 0) throw new Error('ULID: random part overflow')
      digits[i]!++
    } else {
      if (!Number.isInteger(ms) || ms > TIME_MAX) throw new Error(`ULID: bad time ${ms}`)
      lastTime = ms
      let t = ms
      for (let i = 9; i >= 0; i--) {
        const mod = t % 32
        codes[i] = B32_CODES[mod]!
        t = (t - mod) / 32
      }
      for (let i = 15; i >= 0; i--) digits[i] = Math.min(31, Math.floor(random() * 32))
    }
    for (let i = 0; i < 16; i++) codes[10 + i] = B32_CODES[digits[i]!]!
    return String.fromCharCode.apply(null, codes)
  }
}

export interface Draw {
  random: () => number
  /** 0 ≤ int(n) < n */
  int(n: number): number
  chance(p: number): boolean
  pick<T>(arr: readonly T[]): T
  /** a ≤ between(a, b) < max(b, a + 1) */
  between(a: Micros, b: Micros): Micros
  /** a new monotonic ULID generator over this PRNG, ids from a creation time in micros */
  ulid(): (at: Micros) => string
  alnum(n: number): string
}

export function seededDraw(faker: Faker): Draw {
  const random = seededRandom(faker.number.int({ min: 0, max: 2 ** 32 - 1 }))
  const int = (n: number) => Math.floor(random() * n)
  const codes: number[] = []
  return {
    random,
    int,
    chance: (p) => random() < p,
    pick: (arr) => arr[int(arr.length)]!,
    between: (a, b) => a + Math.floor(random() * Math.max(1, b - a)),
    ulid: () => {
      const f = monotonicUlid(random)
      return (at) => f(Math.floor(at / 1000))
    },
    alnum: (n) => {
      codes.length = n
      for (let i = 0; i < n; i++) codes[i] = ALNUM.charCodeAt(int(ALNUM.length))
      return String.fromCharCode(...codes)
    },
  }
}
