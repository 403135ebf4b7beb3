// The bare client of the run benchmark: sends the recorded requests of a run one after another with
// undici, from a plain node process (no loader, no test framework), and prints what it took as JSON.
//
//   node bench/replay.mjs <records.json> <origin>
//
// records.json holds [{ method, path, headers: [[k, v]…], body, status }…] in the run's order; each goes
// to <origin> (the bench's own mock). Bodies are read in full, as the harness reads them.
import { readFileSync } from 'node:fs'
import { Agent, request } from 'undici'

const [file, origin] = process.argv.slice(2)
const records = JSON.parse(readFileSync(file, 'utf8'))
const dispatcher = new Agent({ connections: 8 })
const statuses = {}
let sameStatus = 0
const started = performance.now()
for (const r of records) {
  const headers = r.headers.filter(([k]) => !['host', 'content-length', 'connection'].includes(k.toLowerCase()))
  const res = await request(origin + r.path, { method: r.method, headers: headers.flat(), body: r.body ?? undefined, dispatcher })
  await res.body.text()
  statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1
  if (res.statusCode === r.status) sameStatus++
}
const wallMs = performance.now() - started
await dispatcher.close()
const cpu = process.cpuUsage()
process.stdout.write(
  JSON.stringify({ requests: records.length, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, sameStatus, statuses }) + '\n',
)
