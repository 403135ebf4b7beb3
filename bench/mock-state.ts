// Benchmark of `mock --state` (a mock that never loses an acknowledged write): what making every acknowledged write durable costs.
//
//   npx tsx bench/mock-state.ts [--seconds N] [--connections N]
//
// Two mocks started by the CLI, each in its own process with the request log going to a file: one
// in memory, one with --state (every write appended to the journal and fdatasync'ed before its
// answer; concurrent writes share one fsync). Both are driven with the same write, POST
// /api/admin/v1/policy-data (a new record each time, no state to run out of), over N keep-alive
// connections in alternating rounds (a slow phase of the shared machine hits both alike), then
// over one connection (every write waits for its own fsync: the latency floor of the disk).
// Reports writes/s, p50 and p99 for each, each server's CPU per write (from /proc where there is one:
// steadier than any rate on a loaded machine), and the ratio with/without --state: the median of the
// rounds' ratios, each round a memory run and a --state run back to back, so that a slow phase of the
// machine moves one round rather than the figure.
// Target: with concurrent clients the ratio stays ≥ 0.2 (group commit); exits non-zero otherwise.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { stop } from './mock-admin.ts'
import { QUICK, reportFigure } from './figures.ts'
import { MOCK_CONTROL_HEADER } from '../lib/target.ts'

const RATIO_TARGET = 0.2
const ROUNDS = QUICK ? 3 : 10
const BIN = fileURLToPath(new URL('../bin/admin-conformance.mjs', import.meta.url))
const TOKEN = 'mat_benchstatebenchstatebenchstate12_AAAAAA'
const PATH = '/api/admin/v1/policy-data'
const BODY = JSON.stringify({ data: { admin_clients: ['01J00000000000000000ADM1N0'], bench: true } })
const BODY_BYTES = Buffer.from(BODY)

function startMock(args: string[]): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [BIN, 'mock', '--port', '0', '--quiet', '--sessions', '3000', '--reports', '0', ...args], {
    env: { ...process.env, MOCK_ADMIN_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let err = ''
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  const url = new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      const nl = out.indexOf('\n')
      if (nl !== -1) resolve(out.slice(0, nl).trim())
    })
    child.once('exit', (code) => reject(new Error(`mock exited with ${code}: ${err.slice(-2000)}`)))
  })
  return { child, url }
}

interface Load {
  lat: number[]
  elapsed: number
  errors: number
  /** the server's CPU during the run (user + system, all its threads), ms; NaN without /proc */
  cpuMs: number
}

/** a process's CPU time so far in ms (Linux /proc; NaN elsewhere) */
function cpuMs(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS
  } catch {
    return NaN
  }
}
const CLOCK_TICKS = 100

async function driveServer(child: ChildProcess, url: string, seconds: number, connections: number, warm = true): Promise<Load> {
  const before = cpuMs(child.pid)
  const load = await drive(url, seconds, connections, warm)
  load.cpuMs = cpuMs(child.pid) - before
  return load
}

async function drive(url: string, seconds: number, connections: number, warm = true): Promise<Load> {
  const pool = new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000 })
  const headers = {
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(BODY)),
  }
  const lat: number[] = []
  let errors = 0
  const loop = async (until: number, record: boolean) => {
    while (performance.now() < until) {
      const s = process.hrtime.bigint()
      const r = await pool.request({ method: 'POST', path: PATH, headers, body: BODY_BYTES })
      await r.body.dump()
      if (r.statusCode !== 201) errors++
      if (record) lat.push(Number(process.hrtime.bigint() - s) / 1e6)
    }
  }
  if (warm) await Promise.all(Array.from({ length: connections }, () => loop(performance.now() + 300, false)))
  const start = performance.now()
  await Promise.all(Array.from({ length: connections }, () => loop(start + seconds * 1000, true)))
  const elapsed = (performance.now() - start) / 1000
  await pool.close()
  return { lat, elapsed, errors, cpuMs: NaN }
}

function summary(rounds: Load[]): { rps: number; p50: number; p99: number; errors: number; n: number; cpuUs: number } {
  const lat = rounds.flatMap((r) => r.lat).sort((a, b) => a - b)
  const elapsed = rounds.reduce((a, r) => a + r.elapsed, 0)
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))] ?? NaN
  const cpuUs = (1000 * rounds.reduce((a, r) => a + r.cpuMs, 0)) / lat.length
  return { rps: lat.length / elapsed, p50: pct(50), p99: pct(99), errors: rounds.reduce((a, r) => a + r.errors, 0), n: lat.length, cpuUs }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

export async function runStateBench(opts: { seconds?: number; connections?: number } = {}): Promise<{ ok: boolean; lines: string[] }> {
  const seconds = opts.seconds ?? (QUICK ? 1.5 : 6)
  const connections = opts.connections ?? 10
  const dir = mkdtempSync(join(tmpdir(), 'bench-state-'))
  const memory = startMock(['--log-file', join(dir, 'memory.log')])
  const durable = startMock(['--log-file', join(dir, 'state.log'), '--state', join(dir, 'state')])
  const lines: string[] = []
  let ok = true
  try {
    const [memUrl, stateUrl] = await Promise.all([memory.url, durable.url])
    const mem: Load[] = []
    const st: Load[] = []
    // a first round, not counted: both servers' code warmed up (its ratios were the wildest, 0.8–4×)
    for (let r = -1; r < ROUNDS; r++) {
      const m = await driveServer(memory.child, memUrl, seconds / ROUNDS, connections, r === -1)
      const d = await driveServer(durable.child, stateUrl, seconds / ROUNDS, connections, r === -1)
      if (r >= 0) (mem.push(m), st.push(d))
    }
    const single = Math.max(1, seconds / 3)
    const mem1 = summary([await driveServer(memory.child, memUrl, single, 1)])
    const st1 = summary([await driveServer(durable.child, stateUrl, single, 1)])
    const m = summary(mem)
    const s = summary(st)
    const info = (await (await fetch(`${stateUrl}/_mock/info`, { headers: { [MOCK_CONTROL_HEADER]: '1' } })).json()) as {
      state: { records: number }
    }
    const journalMb = statSync(join(dir, 'state', 'journal')).size / 2 ** 20
    const row = (name: string, l: ReturnType<typeof summary>) =>
      `    ${name.padEnd(34)}${l.rps.toFixed(0).padStart(7)} writes/s  p50 ${l.p50.toFixed(2)} ms  p99 ${l.p99.toFixed(2)} ms  server CPU ${Number.isNaN(l.cpuUs) ? '?' : l.cpuUs.toFixed(0)} µs/write  (${l.n} writes, ${l.errors} not 201)`
    const rounds = mem.map((mr, i) => st[i]!.lat.length / st[i]!.elapsed / (mr.lat.length / mr.elapsed))
    const ratio = median(rounds)
    const pass = ratio >= RATIO_TARGET && s.errors === 0 && m.errors === 0 && info.state.records >= s.n + st1.n
    if (!pass) ok = false
    lines.push(
      `state mock: POST policy-data, ${connections} keep-alive connections, ${seconds} s each in ${ROUNDS} alternating rounds, then 1 connection for ${single} s:`,
    )
    lines.push(row(`memory, ${connections} connections`, m))
    lines.push(row(`--state, ${connections} connections`, s))
    lines.push(row('memory, 1 connection', mem1))
    lines.push(row('--state, 1 connection (fsync each)', st1))
    lines.push(`    journal: ${info.state.records} records, ${journalMb.toFixed(1)} MiB`)
    lines.push(`    the rounds' ratios: ${rounds.map((r) => r.toFixed(2)).join(' ')}; of the totals ${(s.rps / m.rps).toFixed(2)}×`)
    lines.push(
      `    ratio with/without --state (median of the rounds): ${ratio.toFixed(2)}× at ${connections} connections, ${(st1.rps / mem1.rps).toFixed(2)}× at 1 — target ≥ ${RATIO_TARGET}× at ${connections}: ${pass ? 'ok' : 'MISSED'}`,
    )
    reportFigure({
      id: 'mock-state.writes',
      label: `--state writes vs in memory, ${connections} connections`,
      value: ratio,
      unit: '×',
      detail: `${s.rps.toFixed(0)} vs ${m.rps.toFixed(0)} writes/s, median of ${ROUNDS} rounds`,
      better: 'higher',
      goal: 0.5,
    })
  } finally {
    await Promise.all([stop(memory.child), stop(durable.child)])
    rmSync(dir, { recursive: true, force: true })
  }
  return { ok, lines }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { seconds: { type: 'string' }, connections: { type: 'string' } } })
  const opts: { seconds?: number; connections?: number } = {}
  if (values.seconds) opts.seconds = Number(values.seconds)
  if (values.connections) opts.connections = Number(values.connections)
  runStateBench(opts).then(
    (r) => {
      for (const l of r.lines) process.stdout.write(l + '\n')
      process.exit(r.ok ? 0 : 1)
    },
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`)
      process.exit(2)
    },
  )
}
