// The snapshot file: one JSON document of a deployment's observable behaviour, read by `diff` and
// `plan-upgrade --snapshot`. Every value from the target is normalised (normalise.ts) and redacted before
// it is stored; nothing secret is ever in it.
import { readFileSync } from 'node:fs'
import type { Api, NormalisationSection } from './normalise.ts'
import type { Auth, ProbeKind } from './plan.ts'

export const SNAPSHOT_FORMAT = 'admin-conformance-snapshot/1'

export interface Observation {
  api: Api
  operation: string
  families: string[]
  kind: ProbeKind
  method: string
  /** the request as sent, in the default prefixes, ids shown by role (`{id:missing}`) */
  request: string
  auth: Auth
  subject?: string
  /** the release's route table has this route (`unknown`: the release is not known) */
  declared: boolean | 'unknown'
  /** the HTTP status; absent when nothing was sent or nothing answered */
  status?: number
  /** why there is no status: no token for this probe, no item to sample, no answer */
  skipped?: string
  headers?: Record<string, string>
  /** the body as flat paths (normalise.ts); `$text` for a body that is not JSON, `$empty` for none */
  body?: Record<string, string>
}

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT
  tool: string
  takenAt: string
  target: {
    mas?: { url: string; version?: string }
    hs?: { url: string; version?: string; prefix: string; clientPrefix: string }
  }
  requests: number
  normalisation: NormalisationSection
  /** what varies by itself, measured against an earlier snapshot of the same deployment (--noise-from) */
  noise?: { from: string; aspects: Record<string, string[]> }
  probes: Record<string, Observation>
}

export class SnapshotFileError extends Error {
  override name = 'SnapshotFileError'
}

/** Read and check a snapshot file; a SnapshotFileError says what is wrong with it. */
export function readSnapshot(file: string): Snapshot {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new SnapshotFileError(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    throw new SnapshotFileError(`${file}: not JSON (${(e as Error).message})`)
  }
  const s = doc as Partial<Snapshot> | null
  if (!s || typeof s !== 'object' || s.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotFileError(`${file}: not a snapshot of this tool (format ${JSON.stringify(SNAPSHOT_FORMAT)} expected)`)
  }
  if (!s.probes || typeof s.probes !== 'object' || !s.target || typeof s.target !== 'object')
    throw new SnapshotFileError(`${file}: a snapshot without probes or target`)
  return s as Snapshot
}
