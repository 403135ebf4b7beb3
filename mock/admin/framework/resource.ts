// Wire shapes of the admin API: resource objects, single-resource responses and timestamps. Each
// family's attributes (key order as the service serialises them) are in the family's own file. Its error answers are the auth service's own
// (mock/mas-http/errors.ts).
import type { Reply } from '../../core/context.ts'
import type { Micros } from '../../store/mas/index.ts'

export const API = '/api/admin/v1'

/**
 * RFC 3339 UTC with `Z`; fractional seconds only when non-zero, with 3 or 6 digits (chrono's
 * AutoSi on microsecond values).
 */
export function fmtTime(us: Micros): string {
  // Listings print the same timestamps again and again: a small direct-mapped cache.
  const slot = ((us % CACHE_SIZE) + CACHE_SIZE) % CACHE_SIZE
  if (cacheKeys[slot] === us) return cacheValues[slot]!
  const s = formatMicros(us)
  cacheKeys[slot] = us
  cacheValues[slot] = s
  return s
}

const CACHE_SIZE = 8192
const cacheKeys = new Float64Array(CACHE_SIZE).fill(-1)
const cacheValues: (string | undefined)[] = new Array(CACHE_SIZE)

function formatMicros(us: Micros): string {
  const secs = Math.floor(us / 1_000_000)
  const frac = us - secs * 1_000_000
  const days = Math.floor(secs / 86400)
  if (days < 0 || days > 2932896) return fmtTimeSlow(us) // outside years 1970-9999
  let rem = secs - days * 86400
  // civil date from days since 1970-01-01 (H. Hinnant's algorithm), no Date allocation: this
  // runs three times per listed item.
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  const hh = Math.floor(rem / 3600)
  rem -= hh * 3600
  const mm = Math.floor(rem / 60)
  const ss = rem - mm * 60
  const base = `${y}-${TWO[m]}-${TWO[d]}T${TWO[hh]}:${TWO[mm]}:${TWO[ss]}`
  if (frac === 0) return `${base}Z`
  if (frac % 1000 === 0) return `${base}.${THREE[frac / 1000]}Z`
  return `${base}.${THREE[Math.floor(frac / 1000)]}${THREE[frac % 1000]}Z`
}

const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'))
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'))

function fmtTimeSlow(us: Micros): string {
  const ms = Math.floor(us / 1000)
  const sub = us - ms * 1000
  const iso = new Date(ms).toISOString()
  const dot = iso.length - 5 // position of '.mmmZ'
  if (sub !== 0) return `${iso.slice(0, dot + 4)}${THREE[sub]}Z`
  if (ms - Math.floor(ms / 1000) * 1000 !== 0) return iso
  return `${iso.slice(0, dot)}Z`
}

/** fmtTime, or null for a time that is not set */
export const fmtTimeOrNull = (us: Micros | null): string | null => (us === null ? null : fmtTime(us))

export interface ResourceObject {
  type: string
  id: string
  attributes: Record<string, unknown>
  links: { self: string }
  meta?: { page: { cursor: string } }
}

export function resource(type: string, collection: string, id: string, attributes: Record<string, unknown>): ResourceObject {
  return { type, id, attributes, links: { self: `${API}/${collection}/${id}` } }
}

/** `{data, links: {self}}`; `self` defaults to the resource's canonical path. */
export function single(status: number, data: ResourceObject, self = data.links.self): Reply {
  return { status, body: { data, links: { self } } }
}
