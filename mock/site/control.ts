// The mock's control API, off the real paths under /_mock/: reseed, reset, inspect scheduled jobs,
// toggle faults, fake a running background update. Tests, the runner and frontend developers use it;
// no real server has it, so none of its routes is in the OpenAPI document.
import type { Handler, Reply } from '../core/context.ts'
import type { MockState } from './state.ts'
import type { RouteEntry, RouteTable } from '../core/table.ts'
import { FAULTS, UnknownFaultError } from '../faults/registry.ts'

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false; reply: Reply } {
  if (body.length === 0) return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) }
  } catch (e) {
    return { ok: false, reply: { status: 400, body: { error: `request body is not JSON: ${(e as Error).message}` } } }
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The largest world a control request may ask for. Seeding runs on the server's only thread: 2,000,000
 * sessions and reports blocked the mock for minutes and took gigabytes, so the control API stops at a
 * twentieth of that; the command line (--sessions, --reports) is the developer's own choice and goes
 * further.
 */
export const CONTROL_SIZE_LIMITS = { seed: 2 ** 31 - 1, sessions: 100_000, reports: 100_000 } as const

function sizeField(o: Record<string, unknown>, key: keyof typeof CONTROL_SIZE_LIMITS): number | undefined | string {
  const v = o[key]
  if (v === undefined) return undefined
  const max = CONTROL_SIZE_LIMITS[key]
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    return `'${key}' must be an integer from 0 to ${max}${key === 'seed' ? '' : ` through the control API (the mock's --${key} option takes more)`}`
  }
  return v
}

function infoBody(state: MockState): Record<string, unknown> {
  const o = state.options
  return {
    seed: o.seed,
    sessions: o.sessions,
    reports: o.reports,
    masVersion: o.masVersion,
    hsVersion: o.hsVersion,
    hsPrefix: o.hsPrefix,
    clientPrefix: o.clientPrefix,
    logFormat: o.logFormat,
    faults: state.faults.list(),
    // --state: the journal; reset and seed start a new one for the new world (earlier writes are discarded)
    state: state.journal?.info() ?? null,
  }
}

/**
 * A clean start: the world rebuilt from the current seed and sizes (every write, job, background
 * update and pause forgotten) and every fault switched off, also those given at start. The answer
 * says what was done. Browser cookies then name sessions that no longer exist, so they log nobody in.
 */
function reset(state: MockState): Reply {
  const cleared = state.faults.list()
  state.reseed()
  state.faults.set([])
  const o = state.options
  return {
    status: 200,
    body: {
      ...infoBody(state),
      reset: {
        world: `rebuilt from seed ${o.seed} with ${o.sessions} sessions and ${o.reports} reports; writes, jobs and background updates discarded`,
        faultsCleared: cleared,
      },
    },
  }
}

function seed(state: MockState): Handler {
  return (ctx) => {
    const parsed = parseJson(ctx.body)
    if (!parsed.ok) return parsed.reply
    if (!isRecord(parsed.value)) return { status: 400, body: { error: 'body must be a JSON object' } }
    const over: { seed?: number; sessions?: number; reports?: number } = {}
    for (const key of ['seed', 'sessions', 'reports'] as const) {
      const v = sizeField(parsed.value, key)
      if (typeof v === 'string') return { status: 400, body: { error: v } }
      if (v !== undefined) over[key] = v
    }
    state.reseed(over)
    return { status: 200, body: infoBody(state) }
  }
}

function setFaults(state: MockState): Handler {
  return (ctx) => {
    const parsed = parseJson(ctx.body)
    if (!parsed.ok) return parsed.reply
    const v = parsed.value
    if (!isRecord(v) || !Array.isArray(v.faults) || !v.faults.every((f) => typeof f === 'string')) {
      return { status: 400, body: { error: 'body must be {"faults": [names...]}' } }
    }
    try {
      state.faults.set(v.faults as string[])
    } catch (e) {
      if (e instanceof UnknownFaultError) return { status: 400, body: { error: e.message } }
      throw e
    }
    return { status: 200, body: { active: state.faults.list() } }
  }
}

function startBackgroundUpdate(state: MockState): Handler {
  return (ctx) => {
    const parsed = parseJson(ctx.body)
    if (!parsed.ok) return parsed.reply
    const v = isRecord(parsed.value) ? parsed.value : {}
    const name = typeof v.name === 'string' && v.name ? v.name : 'populate_stats_process_rooms'
    const total =
      typeof v.total_item_count === 'number' && Number.isInteger(v.total_item_count) && v.total_item_count >= 0 ? v.total_item_count : 1000
    // total_item_count 0 is an update that has just started: no time spent and no average yet (null).
    const started = total === 0
    state.world.backgroundUpdates.current = [
      {
        database: 'master',
        name,
        total_item_count: total,
        total_duration_ms: started ? 0 : 1234.5,
        average_items_per_ms: started ? null : 0.81,
      },
    ]
    return { status: 200, body: { current_updates: state.world.backgroundUpdates.current } }
  }
}

const CONTROL = { undocumented: "the mock's own control API; no real server has it" }

export function controlTable(state: MockState): RouteTable {
  const entry = (method: string, pattern: string, handler: Handler): RouteEntry => ({
    method,
    pattern: `/_mock/${pattern}`,
    handler,
    doc: CONTROL,
  })
  return {
    api: 'control',
    area: 'control',
    routes: [
      entry('GET', 'info', () => ({ status: 200, body: infoBody(state) })),
      entry('POST', 'reset', () => reset(state)),
      entry('POST', 'seed', seed(state)),
      entry('GET', 'jobs', () => ({ status: 200, body: { jobs: state.world.jobs } })),
      entry('DELETE', 'jobs', () => {
        state.world.jobs.length = 0
        return { status: 200, body: { jobs: [] } }
      }),
      entry('GET', 'faults', () => ({ status: 200, body: { active: state.faults.list(), available: FAULTS } })),
      entry('PUT', 'faults', setFaults(state)),
      entry('POST', 'background-updates', startBackgroundUpdate(state)),
      entry('DELETE', 'background-updates', () => {
        state.world.backgroundUpdates.current = []
        return { status: 200, body: { current_updates: [] } }
      }),
    ],
  }
}
