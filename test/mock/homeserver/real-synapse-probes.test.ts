// The mock claiming each recorded Synapse release against the recorded answers of the real one
// (test/fixtures/synapse/probes-<release>.json, written by test/fixtures/synapse/record-probes.ts: 1.67.0
// from its source tarball, earlier; the newer ones from Debian's package): identical status, errcode,
// error text and extra error keys, the keys of success bodies, and the selected headers (content type,
// caching, CORS, Allow, Server) for every data-independent probe.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { compareAnswers, PROBES, runProbe, type ProbeAnswer } from '../../fixtures/synapse/probes.ts'
import { ADMIN_TOKEN, USER_TOKEN, startHs, whoami } from './helpers.ts'
import { compareVersions } from '../../../lib/versions.ts'

const dir = fileURLToPath(new URL('../../fixtures/synapse/', import.meta.url))
const fixtures = readdirSync(dir)
  .filter((f) => /^probes-\d+\.\d+\.\d+\.json$/.test(f))
  .map((f) => JSON.parse(readFileSync(dir + f, 'utf8')) as { synapse: string; server?: string; answers: Record<string, ProbeAnswer> })
t.ok(fixtures.length >= 2, `recorded probes of ${fixtures.map((f) => f.synapse).join(', ')}`)

/**
 * Where the mock answers differently on purpose, and what it answers instead. None now: the one
 * difference there was (an id beyond 64 bits, a 500 in the real server) is a known defect of that
 * release (lib/data/deviations.json) which the mock claiming it reproduces.
 */
const DELIBERATE: Record<string, { status: number; errcode: string; why: string }> = {}

for (const fixture of fixtures)
  t.test(`the mock claiming ${fixture.synapse} answers every probe as the real ${fixture.synapse} did`, async (t) => {
    // The server name the recording ran with (localhost before it was recorded), as some messages name it.
    const server = fixture.server ?? 'localhost'
    const hs = await startHs({ hsVersion: fixture.synapse, serverName: server })
    t.teardown(() => hs.close())
    const tokens = { admin: ADMIN_TOKEN, user: USER_TOKEN, userId: await whoami(hs, USER_TOKEN), server }
    // The newest recording answers every probe (re-record it after adding probes); a release that can no
    // longer be started keeps the probes it was recorded with.
    const newest = fixtures.every((f) => compareVersions(f.synapse, fixture.synapse) <= 0)
    if (newest)
      t.equal(
        Object.keys(fixture.answers).length,
        PROBES.length,
        'the newest fixture answers every probe (re-record it after changing the probes)',
      )
    let same = 0
    let sameBody = 0
    for (const p of PROBES) {
      const want = fixture.answers[p.name]
      if (!want) {
        if (newest) t.fail(`${p.name}: no recorded answer`)
        continue
      }
      const got = await runProbe(hs.url, p, tokens)
      const deliberate = DELIBERATE[p.name]
      if (deliberate) {
        t.equal(got.status, deliberate.status, `${p.name}: ${deliberate.status} on purpose (${deliberate.why}); real ${want.status}`)
        t.equal(got.error?.errcode, deliberate.errcode, `${p.name}: ${deliberate.errcode}`)
        continue
      }
      const diffs = compareAnswers(want, got)
      if (diffs.length === 0) same++
      if (diffs.every((d) => d.startsWith('header '))) sameBody++
      t.same(diffs, [], `${p.method} ${p.path} (${p.name})`)
    }
    const n = Object.keys(DELIBERATE).length
    t.comment(
      `${same} of ${PROBES.length} probes answered as the real ${fixture.synapse} (${sameBody} in status and body, headers aside); ${n} differ on purpose`,
    )
  })
