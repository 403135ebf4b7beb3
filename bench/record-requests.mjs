// Preloaded (NODE_OPTIONS=--import) into the CLI and every suite worker of a benchmarked run: records each
// HTTP request the process sends through undici (method, origin, path, headers, body as text, and the
// status it got), in order, and writes them to AC_BENCH_RECORD/<pid>.json when the process ends.
// bench/replay.mjs sends them again. Plain JavaScript: it must load before any loader.
import { subscribe } from 'node:diagnostics_channel'
import { writeFileSync } from 'node:fs'
import path from 'node:path'

const dir = process.env.AC_BENCH_RECORD
if (dir) {
  const records = []
  const byRequest = new WeakMap()
  const headerPairs = (h) => {
    if (Array.isArray(h)) {
      const out = []
      for (let i = 0; i + 1 < h.length; i += 2) out.push([String(h[i]), String(h[i + 1])])
      return out
    }
    if (typeof h === 'string')
      return h
        .split('\r\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()])
    return Object.entries(h ?? {}).map(([k, v]) => [k, String(v)])
  }
  subscribe('undici:request:create', ({ request }) => {
    const body = typeof request.body === 'string' ? request.body : Buffer.isBuffer(request.body) ? request.body.toString('utf8') : null
    const r = {
      at: performance.timeOrigin + performance.now(),
      method: request.method,
      origin: String(request.origin),
      path: request.path,
      headers: headerPairs(request.headers),
      body,
      status: null,
    }
    byRequest.set(request, r)
    records.push(r)
  })
  subscribe('undici:request:headers', ({ request, response }) => {
    const r = byRequest.get(request)
    if (r) r.status = response.statusCode
  })
  process.on('exit', () => {
    if (records.length) writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(records))
  })
}
