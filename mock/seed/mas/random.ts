// The seeded randomness of the auth service's world: the seed's generator (../random.ts) seeded from
// the options' faker, and the draws every seeding step shares. Steps draw in a fixed order (see
// ./index.ts), so the same seed gives the same world to the byte.
import { monotonicFactory } from 'ulidx'
import type { Faker } from '@faker-js/faker'
import type { Micros } from '../../store/mas/index.ts'
import { seededRandom } from '../random.ts'

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * A flat copy of an ASCII string. ulidx builds ids by concatenating characters, which V8 keeps as
 * a tree of 25 string pieces (~230 bytes); a million of them would not fit the memory budget.
 */
function flat(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1')
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
      const f = monotonicFactory(random)
      return (at) => flat(f(Math.floor(at / 1000)))
    },
    alnum: (n) => {
      codes.length = n
      for (let i = 0; i < n; i++) codes[i] = ALNUM.charCodeAt(int(ALNUM.length))
      return String.fromCharCode(...codes)
    },
  }
}
