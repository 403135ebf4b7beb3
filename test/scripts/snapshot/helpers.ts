// Snapshots of the bundled mock for the snapshot and diff tests: a mock claiming given releases (and
// faults), snapshotted through the command's own entry point into a temporary file.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startMock, type RunningMock } from '../../../mock/site/server.ts'
import { mockOptions, type MockOptions } from '../../../mock/core/options.ts'
import { run } from '../../../scripts/snapshot/main.ts'
import type { Snapshot } from '../../../scripts/snapshot/format.ts'

export const DIR = mkdtempSync(path.join(tmpdir(), 'ac-snapshot-'))

export interface Taken {
  file: string
  snap: Snapshot
  text: string
  code: number
  stderr: string
  tokens: string[]
}

export function envOf(m: RunningMock): NodeJS.ProcessEnv {
  const o = m.options
  return { MAS_ADMIN_TOKEN: o.adminToken, MAS_USER_TOKEN: o.userToken, HS_ADMIN_TOKEN: o.hsAdminToken, HS_USER_TOKEN: o.hsUserToken }
}

let n = 0
/** Snapshot a running mock (both services at its URL); extra arguments go to the command. */
export async function snapshotMock(m: RunningMock, extra: string[] = []): Promise<Taken> {
  const file = path.join(DIR, `snap-${++n}.json`)
  let stderr = ''
  const code = await run(
    ['--mas-url', m.url, '--hs-url', m.url, '--output', file, ...extra],
    {
      out: () => undefined,
      err: (s) => {
        stderr += s
      },
    },
    envOf(m),
  )
  const text = code === 0 ? readFileSync(file, 'utf8') : ''
  const o = m.options
  return {
    file,
    snap: text ? (JSON.parse(text) as Snapshot) : (undefined as unknown as Snapshot),
    text,
    code,
    stderr,
    tokens: [o.adminToken, o.userToken, o.hsAdminToken, o.hsUserToken],
  }
}

/** Start a mock with these options, snapshot it, stop it. */
export async function snapshotOf(over: Partial<MockOptions>, extra: string[] = []): Promise<Taken> {
  const m = await startMock(mockOptions({ port: 0, logFile: null, ...over }, {}))
  try {
    return await snapshotMock(m, extra)
  } finally {
    await m.close()
  }
}

/** The releases the mock claims when none is given: the newest the tables know. */
export const NEWEST = { hs: mockOptions({}, {}).hsVersion, mas: mockOptions({}, {}).masVersion }

/** A write whose trace survives normalisation: policy data with a key of its own. */
export async function newPolicyData(url: string, adminToken: string): Promise<number> {
  const res = await fetch(`${url}/api/admin/v1/policy-data`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: { admin_conformance_noise: Date.now() } }),
  })
  return res.status
}
