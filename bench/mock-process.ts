// The bundled mock as a child process at a given size, for the benchmarks that measure a command
// against it (sizes.ts, snapshot.ts): its own process, so that its memory is not the measured one's.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../bin/admin-conformance.mjs', import.meta.url))

export interface MockTokens {
  MAS_ADMIN_TOKEN: string
  MAS_USER_TOKEN: string
  HS_ADMIN_TOKEN: string
  HS_USER_TOKEN: string
}

/**
 * Start the mock with these sizes (undefined: the mock's defaults, those of the run's bundled mock) and
 * tokens; resolves with its URL once it prints it (--quiet prints only the URL). `logFile`: its request
 * log ('none' by default).
 */
export async function startMock(
  sessions: number | undefined,
  reports: number | undefined,
  tokens: Partial<MockTokens>,
  logFile = 'none',
): Promise<{ url: string; child: ChildProcess; seedS: number }> {
  const t0 = performance.now()
  const flag = (name: string, v: string | number | undefined) => (v === undefined ? [] : [name, String(v)])
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=8192',
      BIN,
      'mock',
      '--port',
      '0',
      '--quiet',
      '--log-file',
      logFile,
      ...flag('--sessions', sessions),
      ...flag('--reports', reports),
      ...flag('--admin-token', tokens.MAS_ADMIN_TOKEN),
      ...flag('--user-token', tokens.MAS_USER_TOKEN),
      ...flag('--hs-admin-token', tokens.HS_ADMIN_TOKEN),
      ...flag('--hs-user-token', tokens.HS_USER_TOKEN),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /https?:\/\/\S+/.exec(out)
      if (m) resolve(m[0].replace(/\/+$/, ''))
    })
    child.on('exit', (c) => reject(new Error(`the mock exited (${c}) before printing its URL`)))
  })
  return { url, child, seedS: (performance.now() - t0) / 1000 }
}
