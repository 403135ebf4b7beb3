// `npm run bench [-- NAME...]`: runs each benchmark in its own process, one after the other (they
// measure throughput on the same 2 cores, so they must not overlap), and sums up which targets held.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BENCHES: Record<string, string> = {
  'mock-admin': 'area A mock: seeding memory, last/first page ratio, req/s vs bare node:http',
  'mock-homeserver': 'area B mock: filtered listing p99 with 100,000 reports, total without a scan',
  'mock-state': 'mock --state: write throughput and latency with and without the fsync-ed journal, as a ratio',
  'audit-log': 'audit-log lines/s vs grep -c on 1,000,000 lines',
  run: 'full run against the bundled mock vs a bare replay of its own requests (wall, CPU, ratio)',
  sizes: 'read-only run against the mock at 1k..1M sessions: time, requests, peak RSS, outcomes (issue 16)',
  hostile: 'one-worker runs against hostile targets (huge, compressed, deep, endless, slow answers): peak tree RSS, wall time',
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`usage: npm run bench [-- NAME...]\n\n${Object.entries(BENCHES).map(([n, d]) => `  ${n.padEnd(16)} ${d}`).join('\n')}\n`)
  process.exit(0)
}
const unknown = wanted.filter((w) => !(w in BENCHES))
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}\n`)
  process.exit(2)
}
const names = wanted.length ? wanted : Object.keys(BENCHES)
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url))
const results: [string, number, number][] = []
for (const name of names) {
  process.stdout.write(`\n=== ${name}: ${BENCHES[name]}\n`)
  const t0 = Date.now()
  const r = spawnSync(tsx, [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))], { stdio: 'inherit' })
  results.push([name, r.status ?? 1, (Date.now() - t0) / 1000])
}
process.stdout.write('\n=== summary\n')
for (const [name, status, s] of results) process.stdout.write(`  ${status === 0 ? 'met   ' : 'MISSED'}  ${name.padEnd(16)} (${s.toFixed(1)} s)\n`)
process.exit(results.every(([, s]) => s === 0) ? 0 : 1)
