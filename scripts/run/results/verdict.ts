// What a run must have to count as a pass. Before the run: every selected area has its target, its
// admin token, and suite files. After it: at least one check of each selected area ran (not skipped).
// A missing piece is a problem (exit 1) unless --allow-partial turns it into a warning.
import { AREAS, AREA_NAMES, NEED_TEXT, type Area } from '../../../lib/areas.ts'
import type { Target } from '../../../lib/target.ts'
import { groupSkips, type CheckResult, type SuiteResult } from './results.ts'

/** The areas whose needs the target meets (the default selection). */
export function availableAreas(target: Target): Area[] {
  return AREA_NAMES.filter((a) => missingFor(a, target).target === undefined)
}

/** What an area lacks: its target, or (with the target there) the admin token its checks need. */
function missingFor(area: Area, target: Target): { target?: string; token?: string } {
  const need = AREAS[area].needs
  if (need === 'mas') {
    if (!target.mas) return { target: NEED_TEXT.mas }
    if (!target.mas.adminToken) return { token: 'an auth service admin token (--mas-token or MAS_ADMIN_TOKEN)' }
  } else if (need === 'hs') {
    if (!target.hs) return { target: NEED_TEXT.hs }
    if (!target.hs.adminToken) return { token: 'a homeserver admin token (--hs-token or HS_ADMIN_TOKEN)' }
  } else if (need === 'log') {
    if (!target.logFile) return { target: NEED_TEXT.log }
  } else if (!target.mas && !target.hs) return { target: NEED_TEXT.any }
  return {}
}

export interface Selection {
  /** the areas that run */
  areas: Area[]
  /** what is missing (each names the area and what to give) */
  missing: string[]
  /** areas dropped because their target is missing (only with --allow-partial) */
  dropped: Area[]
}

/** The areas to run and what they lack; without --allow-partial an area without a target stays (and fails). */
export function select(requested: Area[] | undefined, target: Target, allowPartial: boolean): Selection {
  const areas = requested ?? availableAreas(target)
  const missing: string[] = []
  const dropped: Area[] = []
  for (const a of areas) {
    const m = missingFor(a, target)
    if (m.target) {
      missing.push(`area ${a} has no target: it needs ${m.target}`)
      dropped.push(a)
    } else if (m.token) missing.push(`area ${a} has no token: it needs ${m.token}; its checks that need it would be skipped`)
  }
  return { areas: allowPartial ? areas.filter((a) => !dropped.includes(a)) : areas, missing, dropped: allowPartial ? dropped : [] }
}

/** After the run: the selected areas in which no check ran, and whether anything was checked at all. */
export function nothingProved(areas: readonly Area[], suites: readonly SuiteResult[], grep: string | undefined): string[] {
  const out: string[] = []
  const ran = (c: CheckResult) => c.outcome !== 'skip'
  const all = suites.flatMap((s) => s.checks)
  // files that crashed or timed out before any check ended fail the run as such, not as "no checks"
  if (all.length === 0)
    return suites.some((s) => s.error) ? [] : [grep ? `no check matched --grep ${grep}` : 'the selected suites hold no checks']
  if (!all.some(ran)) out.push(`every one of the ${all.length} checks was skipped: nothing was checked`)
  for (const a of areas) {
    const files = suites.filter((s) => s.area === a && !s.notRun)
    const checks = files.flatMap((s) => s.checks)
    // (an area whose files were stopped before their end, by an interruption or the deadline, is reported as that)
    const cut = suites.some((s) => s.area === a && s.notRun)
    if (files.length === 0 || checks.length === 0) {
      if (!grep && !cut && files.every((s) => !s.error)) out.push(`area ${a} has no check (${AREAS[a].dir}/)`)
    } else if (!checks.some(ran) && all.some(ran)) {
      const why = groupSkips(checks)
        .map((s) => `${s.count} × ${s.reason}`)
        .join('; ')
      out.push(`area ${a}: all ${checks.length} checks were skipped (${why})`)
    }
  }
  return out
}
