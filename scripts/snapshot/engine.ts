// The snapshot engine: send the plan's requests (plan.ts) one after another through the one HTTP client
// (read-only, with the command's rate, budget, timeout and size cap), and record each answer normalised
// (normalise.ts). A fixed number of requests: the plan does not depend on the target's data.
import { BudgetSpent, DeadlineReached, HttpClient, HttpError, type HttpResponse } from '../../lib/http.ts'
import { redact } from '../../lib/redact.ts'
import { DEFAULT_TIMEOUTS, knownTokens, type Target } from '../../lib/target.ts'
import { flattenBody, normalisationSection, normaliseBodyText, normaliseHeaders, type Bases } from './normalise.ts'
import { declaredAt, pathToSend, snapshotPlan, type Probe } from './plan.ts'
import { SNAPSHOT_FORMAT, type Observation, type Snapshot } from './format.ts'

export interface SnapshotLimits {
  rate?: number
  maxRequests?: number
  maxResponseBytes: number
  requestTimeoutMs: number
  /** --deadline in seconds (0 or undefined: none) */
  deadlineS?: number
}

/** The budget ran out: the snapshot is incomplete, and says at which request. */
export class SnapshotIncomplete extends Error {
  override name = 'SnapshotIncomplete'
}

function sampleOf(json: unknown, path: string[]): string | undefined {
  const body = json as Record<string, unknown> | undefined
  // the auth service's envelope (`data`, a list or one resource) or a homeserver list (`event_reports`,
  // `user_reports`, …: the one array of an object whose other keys are counts and tokens)
  let item: unknown = body?.data ?? (body && typeof body === 'object' ? Object.values(body).find(Array.isArray) : undefined)
  if (Array.isArray(item)) item = item[0]
  let cur = item as Record<string, unknown> | undefined
  for (const part of path) {
    const direct = cur?.[part]
    cur = (direct !== undefined ? direct : (cur?.attributes as Record<string, unknown> | undefined)?.[part]) as
      Record<string, unknown> | undefined
  }
  return typeof cur === 'string' || typeof cur === 'number' ? String(cur) : undefined
}

/** The target's base URLs (longest first, so that one inside the other is replaced whole). */
function basesOf(target: Target): Bases {
  const mas = target.mas?.url
  const hs = target.hs?.url
  if (mas && hs && mas === hs) return [[mas, '<target-url>']]
  const out: [string, string][] = []
  if (mas) out.push([mas, '<mas-url>'])
  if (hs) out.push([hs, '<hs-url>'])
  return out.sort((a, b) => b[0].length - a[0].length)
}

export async function takeSnapshot(
  target: Target,
  limits: SnapshotLimits,
  tool: string,
  onProgress?: (done: number, total: number) => void,
): Promise<Snapshot> {
  const secrets = knownTokens(target)
  const client = new HttpClient({
    allowWrites: false,
    connectTimeoutMs: DEFAULT_TIMEOUTS.connectMs,
    requestTimeoutMs: limits.requestTimeoutMs,
    userAgent: target.userAgent,
    secrets,
    maxResponseBytes: limits.maxResponseBytes,
    ...(limits.rate !== undefined ? { requestsPerSecond: limits.rate } : {}),
    ...(limits.maxRequests !== undefined ? { maxRequests: limits.maxRequests } : {}),
    ...(limits.deadlineS ? { deadlineAt: Date.now() + limits.deadlineS * 1000 } : {}),
  })
  const plan = snapshotPlan({ mas: !!target.mas, hs: !!target.hs })
  const raw = new Map<string, unknown>()
  const probes: Record<string, Observation> = {}
  const clean = (s: string) => redact(s, secrets)
  const bases = basesOf(target)
  try {
    let done = 0
    for (const p of plan) {
      probes[p.key] = await observe(client, target, p, raw, clean, bases)
      onProgress?.(++done, plan.length)
    }
  } finally {
    await client.close()
  }
  const snap: Snapshot = {
    format: SNAPSHOT_FORMAT,
    tool,
    takenAt: new Date().toISOString(),
    target: {
      ...(target.mas ? { mas: { url: target.mas.url, ...(target.versions?.mas ? { version: clean(target.versions.mas) } : {}) } } : {}),
      ...(target.hs
        ? {
            hs: {
              url: target.hs.url,
              ...(target.versions?.hs ? { version: clean(target.versions.hs) } : {}),
              prefix: target.hs.prefix,
              clientPrefix: target.hs.clientPrefix,
            },
          }
        : {}),
    },
    requests: client.stats().requests,
    normalisation: normalisationSection(),
    probes,
  }
  return snap
}

async function observe(
  client: HttpClient,
  target: Target,
  p: Probe,
  raw: Map<string, unknown>,
  clean: (s: string) => string,
  bases: Bases,
): Promise<Observation> {
  const svc = p.api === 'mas' ? target.mas! : target.hs!
  const version = p.api === 'mas' ? target.versions?.mas : target.versions?.hs
  const o: Observation = {
    api: p.api,
    operation: p.operation,
    families: p.families,
    kind: p.kind,
    method: p.method,
    request: p.key.replace(/^\S+ \S+ /, '').replace(/ \[\w+\]$/, ''),
    auth: p.auth,
    ...(p.subject ? { subject: p.subject } : {}),
    declared: declaredAt(p, version),
  }
  const token = p.auth === 'admin' ? svc.adminToken : p.auth === 'user' ? svc.userToken : undefined
  if (p.auth !== 'none' && !token) {
    o.skipped = `no ${p.auth} token for the ${p.api === 'mas' ? 'auth service' : 'homeserver'}`
    return o
  }
  const params = { ...p.params }
  if (p.sample) {
    const value = sampleOf(raw.get(p.sample.probe), p.sample.path)
    if (value === undefined) {
      o.skipped = 'no item to sample (the listing was empty or not readable)'
      return o
    }
    for (const k of Object.keys(params)) params[k] = value
  }
  const hs = target.hs
  const path = pathToSend({ ...p, params }, { hsPrefix: hs?.prefix ?? '/_synapse', clientPrefix: hs?.clientPrefix ?? '/_matrix' })
  let res: HttpResponse
  try {
    res = await client.request(svc.url, path, { method: p.method, query: p.query, token: token ?? null, credentialFree: p.auth === 'none' })
  } catch (e) {
    if (e instanceof BudgetSpent)
      throw new SnapshotIncomplete(
        `the request budget (--max-requests ${e.limit}) was spent at ${p.method} ${clean(p.template)}; no snapshot written`,
      )
    if (e instanceof DeadlineReached)
      throw new SnapshotIncomplete(`the deadline (--deadline) passed at ${p.method} ${clean(p.template)}; no snapshot written`)
    if (e instanceof HttpError) {
      o.skipped = `no answer: ${e.kind}`
      return o
    }
    throw e
  }
  if (p.kind === 'first' && res.json !== undefined) raw.set(p.key, res.json)
  o.status = res.status
  o.headers = Object.fromEntries(Object.entries(normaliseHeaders(res.headers, bases)).map(([k, v]) => [k, clean(v)]))
  if (res.json !== undefined)
    o.body = Object.fromEntries(Object.entries(flattenBody(p.api, res.json, bases)).map(([k, v]) => [clean(k), clean(v)]))
  else if (res.text === '') o.body = { $empty: 'true' }
  else o.body = { $text: clean(normaliseBodyText(res.text, bases)) }
  return o
}
