// Ours against the service's own OpenAPI description (../shared/reference/upstream/, read here only,
// never copied): for every admin operation both describe, we list every status upstream lists and the
// ones it leaves out (401 on every operation, the transport limits), and each of our operations names
// a security scheme and has links where upstream has none. The numbers are printed for the report.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { sharedSkip } from '../../fixtures/shared.ts'
import { buildOpenApi } from '../../../mock/site/openapi/index.ts'

type Json = Record<string, any>

const UPSTREAM = new URL('../../../../shared/reference/upstream/mas-admin-api.openapi.json', import.meta.url)
const skip = sharedSkip(t, UPSTREAM)
const upstream = (skip ? { paths: {} } : JSON.parse(readFileSync(UPSTREAM, 'utf8'))) as Json
const ours = buildOpenApi() as Json
const METHODS = ['get', 'put', 'post', 'delete', 'patch']
const opsOf = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((m) => ({ key: `${m.toUpperCase()} ${p}`, op: (item as Json)[m] as Json })),
  )

t.test('every status upstream documents, and more', { skip }, async (t) => {
  const up = new Map(opsOf(upstream).map((o) => [o.key, o.op]))
  let ourPairs = 0
  let upPairs = 0
  let links = 0
  let upLinks = 0
  for (const { key, op } of opsOf(ours).filter((o) => o.key.includes(' /api/admin/v1/'))) {
    const u = up.get(key)
    if (!u) continue
    const upStatuses = Object.keys(u.responses ?? {})
    const ourStatuses = Object.keys(op.responses)
    for (const s of upStatuses) t.ok(ourStatuses.includes(s), `${key}: upstream's ${s} is ours too`)
    t.ok(ourStatuses.includes('401'), `${key}: 401 documented`)
    t.ok(op.security.length > 0, `${key}: names its security schemes`)
    ourPairs += ourStatuses.length
    upPairs += upStatuses.length
    links += Object.values(op.responses as Json).reduce((n: number, r: Json) => n + Object.keys(r.links ?? {}).length, 0)
    upLinks += Object.values((u.responses ?? {}) as Json).reduce((n: number, r: Json) => n + Object.keys(r.links ?? {}).length, 0)
  }
  const up401 = opsOf(upstream).filter((o) => o.op.responses?.['401']).length
  const up403 = opsOf(upstream).filter((o) => o.op.responses?.['403']).length
  t.comment(
    `(operation, status) pairs: ours ${ourPairs}, upstream ${upPairs}; links: ours ${links}, upstream ${upLinks}; upstream documents 401 on ${up401} and 403 on ${up403} operations`,
  )
  t.ok(ourPairs > upPairs, 'more statuses described than upstream')
})
