// The mock's control API, off the real paths under /_mock/: reseed, inspect scheduled jobs, toggle faults,
// fake a running background update. Tests, the runner and frontend developers use it; no real server has it.
import type { Route, Reply } from './context.ts'
import type { MockState } from './server.ts'
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

const SIZE_LIMIT = 2_000_000

function sizeField(o: Record<string, unknown>, key: string): number | undefined | string {
  const v = o[key]
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > SIZE_LIMIT) return `'${key}' must be an integer from 0 to ${SIZE_LIMIT}`
  return v
}

export function controlRoutes(state: MockState): Route[] {
  const area = 'control' as const
  const info = (): Reply => ({
    status: 200,
    body: {
      seed: state.options.seed,
      sessions: state.options.sessions,
      reports: state.options.reports,
      masVersion: state.options.masVersion,
      hsVersion: state.options.hsVersion,
      hsPrefix: state.options.hsPrefix,
      clientPrefix: state.options.clientPrefix,
      logFormat: state.options.logFormat,
      faults: state.faults.list(),
      // --state: the journal; reset and seed start a new one for the new world (earlier writes are discarded)
      state: state.journal?.info() ?? null,
    },
  })
  return [
    { method: 'GET', pattern: '/_mock/info', area, handler: info },
    {
      method: 'POST',
      pattern: '/_mock/reset',
      area,
      handler: () => {
        state.reseed()
        return info()
      },
    },
    {
      method: 'POST',
      pattern: '/_mock/seed',
      area,
      handler: (ctx) => {
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
        return info()
      },
    },
    { method: 'GET', pattern: '/_mock/jobs', area, handler: () => ({ status: 200, body: { jobs: state.world.jobs } }) },
    {
      method: 'DELETE',
      pattern: '/_mock/jobs',
      area,
      handler: () => {
        state.world.jobs.length = 0
        return { status: 200, body: { jobs: [] } }
      },
    },
    {
      method: 'GET',
      pattern: '/_mock/faults',
      area,
      handler: () => ({ status: 200, body: { active: state.faults.list(), available: FAULTS } }),
    },
    {
      method: 'PUT',
      pattern: '/_mock/faults',
      area,
      handler: (ctx) => {
        const parsed = parseJson(ctx.body)
        if (!parsed.ok) return parsed.reply
        const v = parsed.value
        if (!isRecord(v) || !Array.isArray(v.faults) || !v.faults.every((f) => typeof f === 'string')) {
          return { status: 400, body: { error: "body must be {\"faults\": [names...]}" } }
        }
        try {
          state.faults.set(v.faults as string[])
        } catch (e) {
          if (e instanceof UnknownFaultError) return { status: 400, body: { error: e.message } }
          throw e
        }
        return { status: 200, body: { active: state.faults.list() } }
      },
    },
    {
      method: 'POST',
      pattern: '/_mock/background-updates',
      area,
      handler: (ctx) => {
        const parsed = parseJson(ctx.body)
        if (!parsed.ok) return parsed.reply
        const v = isRecord(parsed.value) ? parsed.value : {}
        const name = typeof v.name === 'string' && v.name ? v.name : 'populate_stats_process_rooms'
        const total = typeof v.total_item_count === 'number' && Number.isInteger(v.total_item_count) && v.total_item_count >= 0 ? v.total_item_count : 1000
        state.world.backgroundUpdates.current = [
          { database: 'master', name, total_item_count: total, total_duration_ms: 1234.5, average_items_per_ms: 0.81 },
        ]
        return { status: 200, body: { current_updates: state.world.backgroundUpdates.current } }
      },
    },
    {
      method: 'DELETE',
      pattern: '/_mock/background-updates',
      area,
      handler: () => {
        state.world.backgroundUpdates.current = []
        return { status: 200, body: { current_updates: [] } }
      },
    },
  ]
}
