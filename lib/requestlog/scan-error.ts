// The error state of the scanners: they return -1 and leave the details here (no exceptions and no
// allocation on the hot path); the reader of the verdict turns them into a ParseError.

import type { ParsePart } from './types.ts'

export const scanError = { part: 'line' as ParsePart, pos: 0, message: '' }

export function fail(part: ParsePart, pos: number, msg: string): -1 {
  scanError.part = part
  scanError.pos = pos
  scanError.message = msg
  return -1
}
