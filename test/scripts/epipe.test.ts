// `admin-conformance … | head`: a reader that goes away (EPIPE on stdout) ends every command quietly,
// without a stack trace. The read end is closed before the command writes anything, so every write fails.
import t from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const bin = fileURLToPath(new URL('../../bin/admin-conformance.mjs', import.meta.url))

function closedReader(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
    p.stdout.destroy()
    let stderr = ''
    p.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    p.on('close', (code) => resolve({ code, stderr }))
  })
}

for (const args of [
  ['mock', '--list-faults'],
  ['--help'],
  ['run', '--help'],
  ['mock', '--help'],
  ['audit-log', '--help'],
  ['plan-upgrade', '--help'],
  ['deploy', '--help'],
]) {
  t.test(`${args.join(' ')} with its reader gone`, async (t) => {
    const r = await closedReader(args)
    t.equal(r.code, 0, 'exits 0 (what it had to say was said, the reader left)')
    t.equal(r.stderr, '', 'no stack trace, nothing on stderr')
  })
}
