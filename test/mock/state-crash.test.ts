// `--state DIR` against real crashes: the mock runs as a child process (the CLI), eight clients
// stream writes at it concurrently (compat finishes, personal-session revokes, regenerates and
// creations, policy data, event-report deletions), and it is killed with SIGKILL in the middle.
// After a restart with the same --state, every acknowledged write is there exactly as its answer
// said, the writes in flight at the kill are either wholly there or wholly absent, nothing else
// changed, and the listings still agree with their counts.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { API, CLIENT, HS_ADMIN, call, introspect, kill9, listAll, start, streamUntilKill } from './state-helpers.ts'

type Op = { kind: string; target?: string; run: (url: string) => Promise<{ status: number; body: any }> }

/** Each target is written once, so each acknowledged answer says exactly what must be there. */
function buildOps(t: { compat: string[]; toRevoke: string[]; owned: string[]; users: string[]; reports: number[] }): Op[] {
  const { compat, toRevoke, owned, users, reports } = t
  const ops: Op[] = []
  for (const id of compat) ops.push({ kind: 'finish', target: id, run: (u) => call(u, 'POST', `${API}/compat-sessions/${id}/finish`) })
  for (const id of toRevoke) ops.push({ kind: 'revoke', target: id, run: (u) => call(u, 'POST', `${API}/personal-sessions/${id}/revoke`) })
  for (const id of owned)
    ops.push({
      kind: 'regenerate',
      target: id,
      run: (u) => call(u, 'POST', `${API}/personal-sessions/${id}/regenerate`, { expires_in: 3600 }),
    })
  for (let i = 0; i < 150; i++) {
    const body = { actor_user_id: users[i % users.length], human_name: `crash ${i}`, scope: 'openid', expires_in: 600 + i }
    ops.push({ kind: 'create', run: (u) => call(u, 'POST', `${API}/personal-sessions`, body) })
    ops.push({ kind: 'policy', run: (u) => call(u, 'POST', `${API}/policy-data`, { data: { crash: i } }) })
  }
  for (const id of reports)
    ops.push({
      kind: 'delete-report',
      target: String(id),
      run: (u) => call(u, 'DELETE', `/_synapse/admin/v1/event_reports/${id}`, undefined, HS_ADMIN),
    })
  // interleave the kinds
  ops.sort(
    (a, b) =>
      (((a.target ?? a.kind).length * 7919 + ops.indexOf(a) * 104729) % 1013) -
      (((b.target ?? b.kind).length * 7919 + ops.indexOf(b) * 104729) % 1013),
  )

  return ops
}

/** the acknowledged writes that are not there after the restart exactly as their answers said */
async function checkAcknowledged(u2: string, acked: { op: Op; body: any }[]): Promise<string[]> {
  const missing: string[] = []
  for (const { op, body } of acked) {
    if (op.kind === 'finish' || op.kind === 'revoke') {
      const p = op.kind === 'finish' ? 'compat-sessions' : 'personal-sessions'
      const now = (await call(u2, 'GET', `${API}/${p}/${op.target}`)).body.data
      if (JSON.stringify(now.attributes) !== JSON.stringify(body.data.attributes)) missing.push(`${op.kind} ${op.target}`)
    } else if (op.kind === 'regenerate') {
      const now = (await call(u2, 'GET', `${API}/personal-sessions/${op.target}`)).body.data
      if (now.attributes.expires_at !== body.data.attributes.expires_at || !(await introspect(u2, body.data.attributes.access_token)))
        missing.push(`regenerate ${op.target}`)
    } else if (op.kind === 'create') {
      const now = await call(u2, 'GET', `${API}/personal-sessions/${body.data.id}`)
      const { access_token, ...attrs } = body.data.attributes
      if (now.status !== 200 || JSON.stringify(now.body.data.attributes) !== JSON.stringify(attrs) || !(await introspect(u2, access_token)))
        missing.push(`create ${body.data.id}`)
    } else if (op.kind === 'policy') {
      const now = await call(u2, 'GET', `${API}/policy-data/${body.data.id}`)
      if (now.status !== 200 || JSON.stringify(now.body.data) !== JSON.stringify(body.data)) missing.push(`policy ${body.data.id}`)
    } else if ((await call(u2, 'GET', `/_synapse/admin/v1/event_reports/${op.target}`, undefined, HS_ADMIN)).status !== 404)
      missing.push(`delete-report ${op.target}`)
  }
  return missing
}

t.test('every acknowledged write survives kill -9, in-flight ones are whole or absent, nothing else', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-state-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let mock = await start(dir)
  t.teardown(() => kill9(mock))
  const url = mock.url
  const active = await listAll(url, `${API}/compat-sessions?filter[status]=active`)
  const compat = active.map((s) => s.id)
  const personal = (await listAll(url, `${API}/personal-sessions?filter[status]=active`)).map((s) => s.id)
  const owned = (await listAll(url, `${API}/personal-sessions?filter[status]=active&filter[owner_client]=${CLIENT}`)).map((s) => s.id)
  const toRevoke = personal.filter((id) => !owned.includes(id))
  // users with an active session are not deactivated: they may own new personal sessions
  const users = [...new Set(active.map((s) => s.attributes.user_id))]
  const reports = (
    (await call(url, 'GET', '/_synapse/admin/v1/event_reports?limit=1000', undefined, HS_ADMIN)).body.event_reports as { id: number }[]
  ).map((r) => r.id)
  const personalBefore = (await listAll(url, `${API}/personal-sessions`)).length
  const policyBefore = (await call(url, 'GET', `${API}/policy-data/latest`)).body.data.id

  const ops = buildOps({ compat, toRevoke, owned, users, reports })

  const stream = await streamUntilKill(
    ops,
    (op) => op.run(url),
    Math.floor(ops.length * 0.6),
    () => kill9(mock),
  )
  const { inFlight, killed } = stream
  const acked = stream.acked.map(({ op, answer }) => ({ op, body: answer.body }))
  t.ok(killed, `killed after ${acked.length} acknowledged writes of ${ops.length}, ${inFlight.size} in flight`)

  mock = await start(dir)
  const u2 = mock.url
  const info = (await call(u2, 'GET', '/_mock/info')).body
  t.ok(
    info.state.replayed >= acked.length,
    `the restart replayed ${info.state.replayed} journal records (≥ ${acked.length} acknowledged writes)`,
  )
  t.comment(
    `acknowledged ${acked.length}, in flight at the kill ${inFlight.size}, records replayed ${info.state.replayed}, torn tail ${JSON.stringify(info.state.tornTail)}`,
  )

  const missing = await checkAcknowledged(u2, acked)
  t.same(missing, [], 'every acknowledged write is there, as acknowledged')

  // Nothing else: writes that were never sent left no trace; in-flight ones are whole or absent.
  const ackedTargets = new Set(acked.map((a) => a.op.target).filter(Boolean))
  const flying = new Set([...inFlight].map((o) => o.target).filter(Boolean))
  const extra: string[] = []
  for (const s of await listAll(u2, `${API}/compat-sessions?filter[status]=finished`)) {
    if (compat.includes(s.id) && !ackedTargets.has(s.id) && !flying.has(s.id)) extra.push(`finish ${s.id}`)
  }
  for (const s of await listAll(u2, `${API}/personal-sessions`)) {
    const a = s.attributes
    if (a.revoked_at !== null && a.expires_at !== null) extra.push(`half revoke ${s.id}`)
    if (toRevoke.includes(s.id) && a.revoked_at !== null && !ackedTargets.has(s.id) && !flying.has(s.id)) extra.push(`revoke ${s.id}`)
  }
  const personalAfter = (await listAll(u2, `${API}/personal-sessions`)).length
  const createsAcked = acked.filter((a) => a.op.kind === 'create').length
  const createsFlying = [...inFlight].filter((o) => o.kind === 'create').length
  t.ok(
    personalAfter - personalBefore >= createsAcked && personalAfter - personalBefore <= createsAcked + createsFlying,
    `personal sessions created: ${personalAfter - personalBefore} (acknowledged ${createsAcked}, in flight ${createsFlying})`,
  )
  t.same(extra, [], 'no write that was not sent, and no half write')
  t.not((await call(u2, 'GET', `${API}/policy-data/latest`)).body.data.id, policyBefore, 'the newest policy data is a journaled one')

  // The replayed indexes agree with the data: every count equals the length of its full listing.
  for (const p of [
    'compat-sessions?filter[status]=finished',
    'personal-sessions?filter[status]=revoked',
    'personal-sessions?filter[expires]=true',
    `personal-sessions?filter[expires_after]=2026-01-01T00:00:00Z`,
  ]) {
    const all = await listAll(u2, `${API}/${p}`)
    const count = (await call(u2, 'GET', `${API}/${p}&count=only`)).body.meta.count
    t.equal(count, all.length, `${p}: count ${count} = listed ${all.length}`)
  }
})
