// A snapshot of the real Synapse from Debian's package against one of the bundled mock claiming the same
// release, compared across deployments (diff --across-deployments, decision 0009): the differences are
// exactly the known model gaps of lib/data/model-gaps.json, each of them seen, and nothing is unexpected.
// Compared value by value (the plain diff), the two deployments' different data shows as changes: the
// mode is what makes the comparison possible. Both worlds are given the same shapes first: more than one
// page of event reports, of user reports and of rooms on each side, and no background update running.
// Skips with the reason when the root filesystem (.ci/synapse.sh) is missing, unless AC_REQUIRE_SYNAPSE=1
// (CI), which turns that into a failure.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import {
  startSynapse,
  synapseAvailability,
  waitForBackgroundUpdates,
  type Account,
  type RealSynapse,
} from '../fixtures/synapse/launcher.ts'
import { seedSynapse } from '../fixtures/synapse/world.ts'
import { startMock } from '../../mock/site/server.ts'
import { mockOptions } from '../../mock/core/options.ts'
import { run as snapshotCli } from '../../scripts/snapshot/main.ts'
import { run as diffCli } from '../../scripts/diff/main.ts'
import type { DiffReport } from '../../scripts/diff/report.ts'
import type { Snapshot } from '../../scripts/snapshot/format.ts'
import { MODEL_GAPS, gapAppliesAt } from '../../lib/model-gaps.ts'

const required = process.env.AC_REQUIRE_SYNAPSE === '1'
/** The page size of the snapshot's listings: each side must have more than this many of each report. */
const PAGE = 5

async function call(s: RealSynapse, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await request(s.url + path, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  })
  const text = await res.body.text()
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined }
}

async function cli(run: typeof snapshotCli, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await run(args, { out: (x) => (out += x), err: (x) => (err += x) }, env)
  return { code, out, err }
}

const avail = synapseAvailability()
if (!avail.ok) {
  if (required) t.fail(`a real Synapse is required here (AC_REQUIRE_SYNAPSE=1) but cannot start: ${avail.reason}`)
  else t.pass(`skipped: no real Synapse here (${avail.reason}); set AC_REQUIRE_SYNAPSE=1 to make this a failure`, { skip: true })
} else {
  const work = mkdtempSync(join(tmpdir(), 'ac-real-snapshot-'))
  const s = await startSynapse(avail)
  const mock = await startMock(mockOptions({ port: 0, logFile: null, hsVersion: s.version }, {}))
  t.teardown(async () => {
    await mock.close()
    await s.stop()
    rmSync(work, { recursive: true, force: true })
  })
  const w = await seedSynapse(s)
  const release = s.version

  t.test('both deployments hold the same shapes', async (t) => {
    // user reports beyond one page, where the release has the call (the world files three)
    if (w.userReports.length > 0) {
      const pairs: [Account, Account][] = [
        [w.alice, w.admin],
        [w.bob, w.admin],
        [w.admin, w.alice],
        [w.alice, w.bob],
      ]
      for (const [who, target] of pairs) {
        const r = await call(s, 'POST', `/_matrix/client/v3/users/${encodeURIComponent(target.userId)}/report`, who.accessToken, {
          reason: 'another page',
        })
        t.equal(r.status, 200, `${who.userId} reports ${target.userId}`)
      }
    }
    const reports = await call(s, 'GET', `/_synapse/admin/v1/event_reports?limit=0`, w.admin.accessToken)
    t.ok(reports.json.total > PAGE, `the real server lists ${reports.json.total} event reports (more than a page of ${PAGE})`)
    if (w.userReports.length > 0) {
      const users = await call(s, 'GET', `/_synapse/admin/v1/user_reports?limit=0`, w.admin.accessToken)
      t.ok(users.json.total > PAGE, `the real server lists ${users.json.total} user reports`)
    }
    // rooms beyond one page too, as the mock seeds them (the room list's next_batch shows on both sides)
    const rooms = await call(s, 'GET', '/_synapse/admin/v1/rooms?limit=0', w.admin.accessToken)
    for (let n = Number(rooms.json.total_rooms); n <= PAGE; n++) {
      const r = await call(s, 'POST', '/_matrix/client/v3/createRoom', w.alice.accessToken, { name: `another page ${n}` })
      t.equal(r.status, 200, `room ${n + 1} created`)
    }
    // A fresh database runs its background updates for a while (the mock's never run).
    const { done, running } = await waitForBackgroundUpdates(s, w.admin.accessToken)
    t.ok(done && running.length === 0, 'no background update runs on the real server', { running })
  })

  t.test(`the real ${release} against the mock claiming it: exactly the known model gaps`, async (t) => {
    const realFile = join(work, 'real.json')
    const mockFile = join(work, 'mock.json')
    const real = await cli(snapshotCli, ['--hs-url', s.url, '--output', realFile], {
      HS_ADMIN_TOKEN: w.admin.accessToken,
      HS_USER_TOKEN: w.bob.accessToken,
    })
    t.equal(real.code, 0, `snapshot of the real server: ${real.err}`)
    const o = mock.options
    const mocked = await cli(snapshotCli, ['--hs-url', mock.url, '--output', mockFile], {
      HS_ADMIN_TOKEN: o.hsAdminToken,
      HS_USER_TOKEN: o.hsUserToken,
    })
    t.equal(mocked.code, 0, `snapshot of the mock: ${mocked.err}`)
    const a = JSON.parse(readFileSync(realFile, 'utf8')) as Snapshot
    const b = JSON.parse(readFileSync(mockFile, 'utf8')) as Snapshot
    t.equal(a.target.hs?.version, b.target.hs?.version, `both claim ${release}`)
    t.same(Object.keys(a.probes).sort(), Object.keys(b.probes).sort(), 'the same probes')
    t.equal(a.requests, b.requests, `the same number of requests (${a.requests})`)

    const reportFile = join(work, 'across.json')
    const across = await cli(diffCli, [realFile, mockFile, '--across-deployments', '--output', reportFile], {})
    const r = JSON.parse(readFileSync(reportFile, 'utf8')) as DiffReport
    const lines = r.explained.operations.flatMap((op) =>
      op.probes.flatMap((p) =>
        p.changes
          .filter((c) => !c.expected && !c.gap)
          .map((c) => `${p.request} [${p.auth}]: ${c.kind} ${c.aspect} ${c.before ?? '(none)'} → ${c.after ?? '(none)'}`),
      ),
    )
    t.same(lines, [], 'no unexpected difference')
    t.equal(r.explained.unexpected, 0, '0 unexpected')
    t.equal(across.code, 0, 'diff --across-deployments exits 0')
    // the gaps of operations a snapshot asks (others, such as methods the mock does not model, explore meets)
    const asked = new Set(r.explained.operations.map((op) => op.operation))
    const known = MODEL_GAPS.filter((g) => g.product === 'synapse' && gapAppliesAt(g, release) && asked.has(g.operation))
      .map((g) => g.id)
      .sort()
    const seen = [
      ...new Set(r.explained.operations.flatMap((op) => op.probes.flatMap((p) => p.changes.flatMap((c) => (c.gap ? [c.gap.id] : []))))),
    ].sort()
    t.same(seen, known, 'every known model gap of this release is seen, and no other')
    t.same(
      r.explained.gaps.filter((g) => !g.seen).map((g) => g.id),
      [],
      'the report lists no gap as not seen',
    )
    t.comment(
      `${Object.keys(a.probes).length} probes each; across deployments: ${r.explained.knownGaps + r.explained.unexpected} difference(s), ${r.explained.knownGaps} covered by the ${seen.length} known model gaps, ${r.explained.unexpected} unexpected`,
    )

    // value by value, the deployments' different data is a change: the mode is what makes them comparable
    const plainFile = join(work, 'plain.json')
    const plain = await cli(diffCli, [realFile, mockFile, '--output', plainFile], {})
    const p = JSON.parse(readFileSync(plainFile, 'utf8')) as DiffReport
    t.equal(plain.code, 1, 'the plain diff exits 1')
    t.ok(p.explained.unexpected > r.explained.knownGaps, `compared value by value: ${p.explained.unexpected} unexpected changes`)
  })
}
