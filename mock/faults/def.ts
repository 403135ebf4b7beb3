// The shape of a fault, apart from the registry so that the catalogs and the registry do not import
// each other. A catalog's helpers keep each name as a literal type, so the registry can build the
// union of all names (FaultName) and `ctx.faults.has('misspelt')` fails the type check.
import type { MasFeature, SynapseFeature } from '../../lib/versions.ts'

export type FaultArea = 'admin' | 'homeserver' | 'auth' | 'log' | 'upgrade'

/**
 * The releases a fault applies to, as rows of lib/data: the claimed homeserver must have `hs` (and
 * lack `hsNot`), the claimed auth service must have `mas`. A fault outside them has nothing to break
 * (the route, filter or field is not in that release) and is not served there by the fault matrix.
 */
export interface FaultVersions {
  hs?: SynapseFeature
  hsNot?: SynapseFeature
  mas?: MasFeature
}

export interface FaultDef<N extends string = string> {
  name: N
  area: FaultArea
  description: string
  versions?: FaultVersions
  /**
   * The product whose release changes the behaviour around this fault (its route, error text, filter
   * or field is versioned), so the matrix runs it again at the other tested releases of that product.
   * Unset: the code path is the same at every release, and the default releases prove the catch.
   */
  differsBy?: 'hs' | 'mas'
}

/** One fault of a catalog, its name kept literal. */
export function fault<N extends string>(
  name: N,
  area: FaultArea,
  description: string,
  more: Pick<FaultDef, 'versions' | 'differsBy'> = {},
): FaultDef<N> {
  return { name, area, description, ...more }
}
