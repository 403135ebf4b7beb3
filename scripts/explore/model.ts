// The model explore compares a target with: the bundled mock started in this process on loopback,
// claiming the target's releases, twice: as the release (its known deviations and defects reproduced)
// and strict (none reproduced), so that a difference can be told apart from a known one (classify.ts).
import type { Prefixes } from './cases.ts'
import { clientFor, type Side } from './engine.ts'

export interface Model {
  model: Side
  strict: Side
  close(): Promise<void>
}

export interface MockStart {
  versions: { mas?: string; hs?: string }
  prefixes: Prefixes
  userAgent: string
  /** faults to inject (the bundled mock as the target: `--mock-fault`) */
  faults?: string[]
  /** reproduce the claimed releases' deviations (default true) */
  deviations?: boolean
  seed?: number
}

/** One bundled mock on a free loopback port, as a side of the comparison. */
export async function startMockSide(s: MockStart): Promise<{ side: Side; close(): Promise<void>; url: string }> {
  const [{ startMock }, { mockOptions }] = await Promise.all([import('../../mock/site/server.ts'), import('../../mock/core/options.ts')])
  const m = await startMock(
    mockOptions(
      {
        host: '127.0.0.1',
        port: 0,
        logFile: null,
        faults: s.faults ?? [],
        hsPrefix: s.prefixes.hsPrefix,
        clientPrefix: s.prefixes.clientPrefix,
        ...(s.versions.mas ? { masVersion: s.versions.mas } : {}),
        ...(s.versions.hs ? { hsVersion: s.versions.hs } : {}),
        ...(s.deviations === false ? { deviations: false } : {}),
        ...(s.seed !== undefined ? { seed: s.seed } : {}),
      },
      {},
    ),
  )
  const o = m.options
  const client = clientFor({
    allowWrites: true,
    userAgent: s.userAgent,
    secrets: [o.adminToken, o.userToken, o.hsAdminToken, o.hsUserToken],
  })
  const side: Side = {
    mas: { url: m.url, adminToken: o.adminToken, userToken: o.userToken },
    hs: { url: m.url, adminToken: o.hsAdminToken, userToken: o.hsUserToken },
    prefixes: s.prefixes,
    client,
  }
  return {
    side,
    url: m.url,
    close: async () => {
      await client.close()
      await m.close()
    },
  }
}

/** The model and the strict model claiming the given releases. */
export async function startModel(versions: { mas?: string; hs?: string }, prefixes: Prefixes, userAgent: string): Promise<Model> {
  const a = await startMockSide({ versions, prefixes, userAgent })
  let b
  try {
    b = await startMockSide({ versions, prefixes, userAgent, deviations: false })
  } catch (e) {
    await a.close()
    throw e
  }
  return {
    model: a.side,
    strict: b.side,
    close: async () => {
      await Promise.all([a.close(), b.close()])
    },
  }
}
