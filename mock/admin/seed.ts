import type { MockOptions } from '../options.ts'
import type { MasStore } from '../store/mas.ts'
export function seedMas(_options: MockOptions): MasStore {
  return {}
}
