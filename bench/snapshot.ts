// Benchmark of `snapshot` at any size: a separately started `admin-conformance mock` seeded with 1,000 and
// 1,000,000 sessions (100 → 100,000 event reports), each snapshotted twice (the faster round counts: a mock
// just seeded with a million sessions is still collecting its seeding's garbage during the first). For each
// size: wall time, requests (from the file), file size. Targets: requests equal, file size within 3%, time
// at the largest size ≤ 2× the time at the smallest. Exits non-zero when one is missed.
//
//   npx tsx bench/snapshot.ts [--sizes 1000,1000000] [--rounds N]
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { QUICK, reportFigure } from './figures.ts'
import { BIN, startMock } from './mock-process.ts'
import { parseArgs } from 'node:util'

const TOKENS = {
  MAS_ADMIN_TOKEN: 'mat_benchsnapshotadmin00000000',
  MAS_USER_TOKEN: 'mat_benchsnapshotuser000000000',
  HS_ADMIN_TOKEN: 'syt_benchsnapshotadmin00000000',
  HS_USER_TOKEN: 'syt_benchsnapshotuser000000000',
}

async function snapshotOnce(url: string, file: string): Promise<{ wallS: number; exitCode: number }> {
  const t0 = performance.now()
  const child = spawn(process.execPath, [BIN, 'snapshot', '--mas-url', url, '--hs-url', url, '--output', file], {
    stdio: 'ignore',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TOKENS },
  })
  const exitCode = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)))
  return { wallS: (performance.now() - t0) / 1000, exitCode }
}

interface Result {
  sessions: number
  seedS: number
  wallS: number
  wallsS: number[]
  requests: number
  bytes: number
  exitCode: number
}

async function measure(sessions: number, rounds: number, dir: string): Promise<Result> {
  const mock = await startMock(sessions, Math.max(100, Math.round(sessions / 10)), TOKENS)
  try {
    const runs: { wallS: number; exitCode: number; requests: number; bytes: number }[] = []
    for (let i = 0; i < rounds; i++) {
      const file = path.join(dir, `snap-${sessions}-${i}.json`)
      const r = await snapshotOnce(mock.url, file)
      const requests = r.exitCode === 0 ? (JSON.parse(readFileSync(file, 'utf8')) as { requests: number }).requests : 0
      runs.push({ ...r, requests, bytes: r.exitCode === 0 ? statSync(file).size : 0 })
    }
    const best = runs.reduce((a, b) => (b.wallS < a.wallS ? b : a))
    return {
      sessions,
      seedS: mock.seedS,
      wallS: best.wallS,
      wallsS: runs.map((r) => r.wallS),
      requests: best.requests,
      bytes: best.bytes,
      exitCode: Math.max(...runs.map((r) => r.exitCode)),
    }
  } finally {
    mock.child.kill('SIGTERM')
    await new Promise((r) => mock.child.once('exit', r))
  }
}

const { values } = parseArgs({ options: { sizes: { type: 'string' }, rounds: { type: 'string' } } })
const sizes = (values.sizes ?? (QUICK ? '1000,20000' : '1000,1000000')).split(',').map(Number)
const rounds = Number(values.rounds ?? (QUICK ? 1 : 2))
const dir = mkdtempSync(path.join(tmpdir(), 'ac-bench-snapshot-'))
const results: Result[] = []
for (const s of sizes) {
  const r = await measure(s, rounds, dir)
  results.push(r)
  process.stdout.write(
    `${String(s).padStart(9)} sessions: seeded in ${r.seedS.toFixed(1)} s; snapshot ${r.wallS.toFixed(2)} s (rounds ${r.wallsS.map((x) => x.toFixed(2)).join(', ')}), ${r.requests} requests, ${r.bytes} bytes, exit ${r.exitCode}\n`,
  )
}
rmSync(dir, { recursive: true, force: true })
const [first, last] = [results[0]!, results[results.length - 1]!]
const time = last.wallS / first.wallS
const size = last.bytes / first.bytes
process.stdout.write(
  `time ${time.toFixed(2)}× (≤ 2×), requests ${last.requests} vs ${first.requests} (equal), file size ${size.toFixed(3)}× (within 3%)\n`,
)
reportFigure({
  id: 'snapshot.time-ratio',
  label: `snapshot at ${last.sessions.toLocaleString('en')} vs ${first.sessions.toLocaleString('en')} sessions: time`,
  value: time,
  unit: '×',
  detail: `${last.wallS.toFixed(2)} vs ${first.wallS.toFixed(2)} s, ${last.requests} requests each`,
  better: 'lower',
  goal: 2,
})
reportFigure({
  id: 'snapshot.size-ratio',
  label: `snapshot at ${last.sessions.toLocaleString('en')} vs ${first.sessions.toLocaleString('en')} sessions: file size`,
  value: size,
  unit: '×',
  detail: `${last.bytes} vs ${first.bytes} bytes`,
  better: 'lower',
  goal: 1.03,
})
const ok = results.every((r) => r.exitCode === 0) && last.requests === first.requests && time <= 2 && Math.abs(size - 1) <= 0.03
process.exitCode = ok ? 0 : 1
