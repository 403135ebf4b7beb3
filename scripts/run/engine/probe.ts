// Preloaded into every suite process (`--import`, set by the runner's tap project): counts the HTTP
// statuses the target answered, per origin, from undici's diagnostics channels, and leaves the counts in
// the run's probe folder when the process ends. The runner reads them to warn when a pass means little
// (every request answered 401, 404 or 5xx). It never sees a body or a header value.
import { subscribe } from 'node:diagnostics_channel'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { PROBE_ENV, type ProbeCounts } from './probe-data.ts'

const dir = process.env[PROBE_ENV]
if (dir) {
  const counts: ProbeCounts = {}
  const add = (origin: string, key: string) => {
    const o = (counts[origin] ??= {})
    o[key] = (o[key] ?? 0) + 1
  }
  const origin = (req: { origin?: unknown; path?: unknown }) => (typeof req.origin === 'string' ? req.origin : String(req.origin ?? '?'))
  // The mock's control API (/_mock/...) is the harness talking to itself, not the target answering.
  const own = (req: { path?: unknown }) => typeof req.path === 'string' && req.path.startsWith('/_mock/')
  subscribe('undici:request:headers', (m) => {
    const { request, response } = m as { request: { origin?: unknown; path?: unknown }; response: { statusCode: number } }
    if (!own(request)) add(origin(request), String(response.statusCode))
  })
  subscribe('undici:request:error', (m) => {
    const { request } = m as { request: { origin?: unknown; path?: unknown } }
    if (!own(request)) add(origin(request), 'error')
  })
  process.on('exit', () => {
    if (Object.keys(counts).length === 0) return
    try {
      writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(counts))
    } catch {
      // the run's folder is gone (the runner was interrupted): nothing to report to
    }
  })
}
