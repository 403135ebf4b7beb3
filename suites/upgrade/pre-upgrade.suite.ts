// Pre-upgrade checks (area C, `--area upgrade`): before a homeserver upgrade, the running versions parse,
// the admin API lives under <prefix>/admin/v1 only, no background update is running, and the rollback
// floor of the running version is known. Read-only: every request is a GET.
// @waits three background-update status reads 250 ms apart (the runner overlaps them with other files)
import {
  check,
  client,
  diag,
  expectHsError,
  expectOk,
  expectSchema,
  hsFeature,
  hsFeatureRule,
  hs,
  hsVersion,
  mas,
  note,
  requireMasFeature,
  setRule,
  shown,
  skip,
  target,
  MAS_API,
} from '../lib/suite.ts'
import {
  LEGACY_ADMIN_PREFIXES,
  LEGACY_ADMIN_REMOVED_IN,
  backgroundUpdatesStatusPath,
  floorForRunningVersion,
  formatRange,
  formatVersion,
  legacyAdminProbePaths,
  parseServerVersionString,
  synapseHas,
} from '../../lib/versions.ts'

const PREFIX = target.hs?.prefix ?? '/_synapse'
const SERVER_VERSION = `${PREFIX}/admin/v1/server_version`
const STATUS = backgroundUpdatesStatusPath(PREFIX)
// The status endpoint shows only the update running at this moment, not the queue; between two queued
// updates it is briefly empty. A few reads spaced apart make it unlikely to report "idle" in such a gap.
const STATUS_READS = 3
const STATUS_GAP_MS = 250

check('upgrade: the homeserver server_version parses as a release version', ['hs-url'], async (t) => {
  const body = expectOk<{ server_version?: unknown }>(t, await hs('GET', '/server_version', { as: 'none' }), `GET ${SERVER_VERSION}`)
  if (!body) return
  const p = parseServerVersionString(body.server_version)
  if (!p.ok) {
    t.fail(`server_version starts with a release version X.Y.Z: ${p.reason}`, { server_version: shown(body.server_version) })
    return
  }
  t.pass('server_version starts with a release version X.Y.Z')
  note(t, `homeserver ${p.raw} → ${formatVersion(p.version)}`)
})

check('upgrade: the auth service version parses as a release version', ['mas'], async (t) => {
  await requireMasFeature(t, 'version-endpoint')
  const body = expectOk<{ version?: unknown }>(t, await mas('GET', '/version'), `GET ${MAS_API}/version`)
  if (!body) return
  const p = parseServerVersionString(body.version)
  if (!p.ok) {
    t.fail(`version starts with a release version vX.Y.Z: ${p.reason}`, { version: shown(body.version) })
    return
  }
  t.pass('version starts with a release version vX.Y.Z')
  note(t, `auth service ${p.raw} → ${formatVersion(p.version)}`)
})

check(`upgrade: the admin API is served under ${PREFIX}/admin/v1`, ['hs-url'], async (t) => {
  // server_version needs no token, so any homeserver answers it wherever its admin API is mounted.
  const res = await hs('GET', '/server_version', { as: 'none' })
  const body = expectOk<{ server_version?: unknown }>(t, res, `GET ${SERVER_VERSION}`, { schema: 'homeserver/server-version' })
  if (!body) return
  t.type(body.server_version, 'string', `${SERVER_VERSION} answers a server_version`)
})

check(
  `upgrade: the legacy admin prefixes removed in ${formatVersion(LEGACY_ADMIN_REMOVED_IN)} answer as unrouted requests`,
  ['hs-url'],
  async (t) => {
    const v = await hsVersion()
    if (synapseHas(v, 'legacy-admin-prefixes') === true) {
      skip(`the homeserver is ${v}; the legacy prefixes were served until ${formatVersion(LEGACY_ADMIN_REMOVED_IN)}`)
    }
    const h = target.hs!
    // The data says /_matrix (the interface's `_compat`); a deployment with another client prefix moves them.
    const clientPrefix = (p: string) => (p.startsWith('/_matrix/') ? h.clientPrefix + p.slice('/_matrix'.length) : p)
    // With the admin token when there is one: a 401 would not tell "removed" from "needs a token". server_version
    // needs no token at all, so a server still serving the old prefix would answer it 200 either way.
    const token = h.adminToken
    const paths = [...legacyAdminProbePaths('server_version'), ...legacyAdminProbePaths('event_reports')].map(clientPrefix)
    t.equal(paths.length, LEGACY_ADMIN_PREFIXES.length * 2, `${LEGACY_ADMIN_PREFIXES.length} legacy prefixes probed`)
    // Unrouted, as the version answers it: 404 since v1.78.0, before that 400 M_UNRECOGNIZED (asserted with its errcode).
    const since = await hsFeature('unrouted-404-405')
    if (!since) setRule(await hsFeatureRule('unrouted-404-405'))
    for (const path of paths) {
      const res = await client.request(h.url, path, { method: 'GET', token })
      if (since) t.equal(res.status, 404, `GET ${path} → 404`, diag(res))
      else expectHsError(t, res, 400, 'M_UNRECOGNIZED', `GET ${path} (unrouted before v1.78.0)`, 'Unrecognized request')
    }
  },
)

check('upgrade: no background update is running', ['hs'], async (t) => {
  const running = new Map<string, string>()
  let paused = false
  for (let i = 0; i < STATUS_READS; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, STATUS_GAP_MS))
    const res = await hs('GET', '/background_updates/status')
    const body = expectOk<{ enabled?: unknown; current_updates?: unknown }>(t, res, `GET ${STATUS} (read ${i + 1} of ${STATUS_READS})`)
    if (!body) return
    if (!expectSchema(t, 'homeserver/background-updates#Status', body, `GET ${STATUS}`)) return
    if (body.enabled === false) paused = true
    for (const [db, u] of Object.entries(body.current_updates as Record<string, { name: string; total_item_count: number }>)) {
      running.set(`${db}: ${u.name}`, `${db}: ${u.name} (${u.total_item_count} items so far)`)
    }
  }
  const list = [...running.values()]
  t.same(
    list,
    [],
    list.length === 0
      ? `current_updates is {} in ${STATUS_READS} reads`
      : `no background update is running — running: ${list.join('; ')}; wait until ${STATUS} answers "current_updates": {} before upgrading`,
  )
  if (paused) {
    note(
      t,
      `background updates are paused ("enabled": false): queued updates do not show in current_updates; resume them (POST ${PREFIX}/admin/v1/background_updates/enabled {"enabled": true}) and let them finish before upgrading`,
    )
  }
})

check('upgrade: the rollback floor of the running homeserver version is known', ['hs-url'], async (t) => {
  const v = await hsVersion()
  if (v === undefined) {
    t.fail(`could not read server_version from ${SERVER_VERSION}`)
    return
  }
  const running = floorForRunningVersion(v)
  if (!running.ok) {
    t.fail(`server_version ${JSON.stringify(v)} gives a version to look up: ${running.reason}`)
    return
  }
  const version = formatVersion(running.version)
  const r = running.result
  switch (r.kind) {
    case 'floor':
      note(t, `rollback floor of ${version}: ${formatVersion(r.floor)} (range ${formatRange(r.range)}, ${r.table} table, ${r.section})`)
      note(
        t,
        `after upgrading from ${version}, plan-upgrade --from ${version} --to <target> tells whether a rollback to ${version} stays possible`,
      )
      t.pass(`${version} has a rollback floor (${formatVersion(r.floor)})`)
      return
    case 'beyond-table': {
      const last = r.lastRow
      note(
        t,
        `${version} is beyond the interface document's rollback table (its last row: ${formatRange(last)} → ${formatVersion(last.floor)}); no floor is assumed`,
      )
      const ref = r.reference.kind === 'floor' ? r.reference : null
      if (ref) {
        note(
          t,
          `reference table (not the default; plan-upgrade --table reference): floor ${formatVersion(ref.floor)} (range ${formatRange(ref.range)})${ref.extrapolated ? ', extrapolated past the newest release it was computed from' : ''}`,
        )
      }
      t.pass(
        `${version} is reported as beyond the interface rollback table${ref ? ` (reference table: floor ${formatVersion(ref.floor)})` : ''}`,
      )
      return
    }
    case 'not-covered':
      t.fail(`${version} has a rollback floor: ${r.reason}`)
      return
  }
})
