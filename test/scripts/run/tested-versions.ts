// The releases the project tests the bundled mock and the fault matrix at: Synapse 1.67.0 (the real
// server of test/real-synapse), 1.79.0 (DELETE of a report), 1.106.0 (the generic integer messages) and
// the newest; the auth service's oldest supported release (v1.4.0: the first with GET
// /api/admin/v1/version, which the preflight and every version-dependent check need) and the newest.
// Each homeserver release is paired with one auth-service release so that four runs cover all six.
import { mockOptions } from '../../../mock/core/options.ts'

const NEWEST = mockOptions({}, {})

export const NEWEST_HS = NEWEST.hsVersion
export const NEWEST_MAS = NEWEST.masVersion
export const OLDEST_MAS = 'v1.4.0'

export const TESTED: readonly { hs: string; mas: string }[] = [
  { hs: '1.67.0', mas: OLDEST_MAS },
  { hs: '1.79.0', mas: NEWEST_MAS },
  { hs: '1.106.0', mas: OLDEST_MAS },
  { hs: NEWEST_HS, mas: NEWEST_MAS },
]
