// The shape of a fault, apart from the registry so that the catalogs and the registry do not import
// each other. A catalog's helpers keep each name as a literal type, so the registry can build the
// union of all names (FaultName) and `ctx.faults.has('misspelt')` fails the type check.
export type FaultArea = 'admin' | 'homeserver' | 'auth' | 'log' | 'upgrade'

export interface FaultDef<N extends string = string> {
  name: N
  area: FaultArea
  description: string
}

/** One fault of a catalog, its name kept literal. */
export function fault<N extends string>(name: N, area: FaultArea, description: string): FaultDef<N> {
  return { name, area, description }
}
