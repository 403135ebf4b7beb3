// The explore engine: send each generated case to the target and to the model (the bundled mock claiming
// the target's release, and the same mock strict), judge the answers (oracles.ts, classify.ts), group the
// findings by operation, rule and answer, and shrink each group's smallest request (fewest query
// parameters, shortest line) by dropping what the finding does not need. Real ids are sampled from each
// side's own listings, so that a case with "a real id" asks each side for one of its own.
import { BudgetSpent, DeadlineReached, HttpClient, HttpError, type HttpResponse } from '../../lib/http.ts'
import { DEFAULT_TIMEOUTS } from '../../lib/target.ts'
import { visible } from '../../lib/escape.ts'
import type { DeviationInfo } from '../../lib/deviations.ts'
import {
  MALFORMED_TOKEN,
  caseLine,
  curlLine,
  pathOf,
  type Answer,
  type Api,
  type Case,
  type Prefixes,
  type SentRequest,
  type Value,
} from './cases.ts'
import { generate, operationsAt, type Operation } from './generate.ts'
import { judge, type FindingClass } from './classify.ts'
import type { Violation } from './oracles.ts'
import { listingProblems } from './invariants.ts'
import { queryParams } from '../snapshot/schema-facts.ts'

/** One side of the comparison: a base URL per API, its tokens and prefixes, and the client that asks it. */
export interface Side {
  mas?: { url: string; adminToken?: string; userToken?: string }
  hs?: { url: string; adminToken?: string; userToken?: string }
  prefixes: Prefixes
  client: HttpClient
}

export interface Finding {
  /** `area-rule-n`, stable within a run */
  id: string
  cls: FindingClass
  deviation?: { id: string; kind: string; fact: string }
  api: Api
  operation: string
  kind: string
  note: string
  /** the smallest case found with this finding */
  case: Case
  request: string
  curl: string
  answer: { status: number; contentType: string; body: string }
  model: { status: number; body: string }
  violations: Violation[]
  /** cases that ended in the same finding (grouped) */
  occurrences: number
  /** requests spent shrinking it */
  shrinkRequests: number
}

export interface ExploreResult {
  cases: number
  sent: number
  requests: { target: number; model: number }
  findings: Finding[]
  /** per operation: cases, target requests, milliseconds */
  perOperation: Record<string, { cases: number; requests: number; ms: number }>
  incomplete?: string
  /** cases skipped: no real id to sample, no token for the credential, or writes not allowed */
  skipped: number
  /** the first skipped cases, as lines */
  skippedCases: string[]
  durationMs: number
}

export interface ExploreOptions {
  seed: number
  random: number
  allowWrites: boolean
  versions: { mas?: string; hs?: string }
  /** the largest body excerpt kept in a finding */
  excerpt?: number
  /** at most this many requests to shrink each finding */
  shrinkBudget?: number
  onProgress?: (done: number, total: number, findings: number) => void
  /** only the cases whose line includes this text (replay, tests) */
  only?: (c: Case) => boolean
  /** the cases to send instead of generated ones (replay) */
  cases?: Case[]
  /** walk the small listings (default true; not with cases given) */
  invariants?: boolean
}

const CLASS_ORDER: Record<FindingClass, number> = { 'target-defect': 0, 'known-defect': 1, 'known-deviation': 2, 'model-gap': 3 }

function sampleOf(json: unknown, field: string): string | undefined {
  const body = json as Record<string, unknown> | undefined
  let item: unknown = body?.data ?? (body && typeof body === 'object' ? Object.values(body).find(Array.isArray) : undefined)
  if (Array.isArray(item)) item = item[0]
  const o = item as Record<string, unknown> | undefined
  const v = o?.[field] ?? (o?.attributes as Record<string, unknown> | undefined)?.[field]
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined
}

function answerOf(res: HttpResponse, max: number): Answer {
  return {
    status: res.status,
    contentType: res.headers['content-type'] ?? '',
    ...(res.json !== undefined ? { json: res.json } : {}),
    text: res.text.length > max ? res.text.slice(0, max) : res.text,
    ...(res.headers.date ? { date: res.headers.date } : {}),
  }
}

class Asker {
  private samples = new Map<string, unknown>()
  constructor(
    readonly side: Side,
    readonly max: number,
  ) {}

  private svc(api: Api) {
    return api === 'mas' ? this.side.mas : this.side.hs
  }

  async sample(listing: string, api: Api): Promise<unknown> {
    if (this.samples.has(listing)) return this.samples.get(listing)
    const svc = this.svc(api)!
    const q: [string, string][] = api === 'mas' ? [['page[first]', '10']] : [['limit', '10']]
    let json: unknown
    try {
      const res = await this.side.client.request(
        svc.url,
        pathOf({ api, template: listing, params: {}, query: [] } as unknown as Case, () => '', this.side.prefixes)!,
        { query: q, token: svc.adminToken ?? null },
      )
      json = res.status === 200 ? res.json : undefined
    } catch (e) {
      if (e instanceof BudgetSpent || e instanceof DeadlineReached) throw e
      json = undefined
    }
    this.samples.set(listing, json)
    return json
  }

  /** The request a case is on this side, or undefined when a sampled value is missing here. */
  async resolve(c: Case): Promise<SentRequest | undefined> {
    const values = new Map<Value, string | undefined>()
    for (const v of [...Object.values(c.params), ...c.query.map(([, x]) => x)]) {
      if (typeof v === 'string') continue
      values.set(v, sampleOf(await this.sample(v.sample, c.api), v.field))
    }
    const path = pathOf(c, (v) => (typeof v === 'string' ? v : values.get(v)), this.side.prefixes)
    if (path === undefined) return undefined
    return { method: c.method, path, auth: c.auth, ...(c.body !== undefined ? { body: c.body } : {}) }
  }

  async ask(c: Case, r: SentRequest): Promise<Answer | undefined> {
    const svc = this.svc(c.api)
    if (!svc) return undefined
    const token =
      r.auth === 'admin' ? svc.adminToken : r.auth === 'user' ? svc.userToken : r.auth === 'malformed' ? MALFORMED_TOKEN : undefined
    if ((r.auth === 'admin' || r.auth === 'user') && !token) return undefined
    try {
      const res = await this.side.client.request(svc.url, r.path, {
        method: r.method,
        token: token ?? null,
        ...(r.body !== undefined ? { rawBody: r.body, headers: { 'content-type': 'application/json' } } : {}),
        credentialFree: r.auth === 'none' && r.body === undefined,
      })
      return answerOf(res, this.max)
    } catch (e) {
      if (e instanceof BudgetSpent || e instanceof DeadlineReached) throw e
      if (e instanceof HttpError) return { status: 0, contentType: '', text: `no answer: ${e.kind}` }
      if ((e as Error).name === 'WritesNotAllowed') return undefined
      throw e
    }
  }
}

interface Judged {
  /** a listing invariant's finding: its request is one page of a walk, not shrunk */
  noShrink?: boolean
  c: Case
  /** the case's place in the generated order */
  index: number
  sent: SentRequest
  target: Answer
  model: Answer
  cls: FindingClass
  deviation?: DeviationInfo
  violations: Violation[]
}

function signature(j: Judged): string {
  const errcode = (j.target.json as { errcode?: unknown } | undefined)?.errcode
  return [
    j.c.operation,
    j.c.method,
    j.cls,
    j.violations
      .map((v) => v.rule)
      .sort()
      .join('+'),
    j.target.status,
    typeof errcode === 'string' ? errcode : '',
  ].join(' ')
}

/** A request's size: its query parameters and body; values are not measured (see shrink). */
function sizeOf(c: Case): number {
  return c.query.length + (c.body !== undefined ? 1 : 0)
}

/** Smaller, or as small and generated earlier. */
function smaller(a: Judged, b: Judged): boolean {
  return sizeOf(a.c) !== sizeOf(b.c) ? sizeOf(a.c) < sizeOf(b.c) : a.index < b.index
}

/** Explore a target against the model; `target`, `model` and `strict` are sides with their own clients. */
export async function explore(target: Side, model: Side, strict: Side, o: ExploreOptions): Promise<ExploreResult> {
  const started = performance.now()
  const apis = { mas: !!target.mas, hs: !!target.hs }
  const max = o.excerpt ?? 2000
  const ops = new Map<string, Operation>(operationsAt(o.versions, apis).map((op) => [op.key, op]))
  let cases = o.cases ?? generate({ versions: o.versions, apis, allowWrites: o.allowWrites, seed: o.seed, random: o.random })
  if (o.only) cases = cases.filter(o.only)
  const sides = { target: new Asker(target, max), model: new Asker(model, max), strict: new Asker(strict, max) }
  const groups = new Map<string, { best: Judged; count: number }>()
  const perOperation: ExploreResult['perOperation'] = {}
  let sent = 0
  let skipped = 0
  const skippedCases: string[] = []
  let incomplete: string | undefined
  const versionOf = (api: Api) => (api === 'mas' ? o.versions.mas : o.versions.hs)

  const run = async (c: Case, index: number): Promise<Judged | undefined | 'skipped'> => {
    const tr = await sides.target.resolve(c)
    const mr = await sides.model.resolve(c)
    const sr = await sides.strict.resolve(c)
    if (!tr || !mr || !sr) return 'skipped'
    const ta = await sides.target.ask(c, tr)
    if (!ta) return 'skipped'
    const ma = await sides.model.ask(c, mr)
    const sa = await sides.strict.ask(c, sr)
    if (!ma || !sa) return 'skipped'
    const v = judge(c, ops.get(c.operation), versionOf(c.api), ta, ma, sa)
    if (!v) return undefined
    return {
      c,
      index,
      sent: tr,
      target: ta,
      model: ma,
      cls: v.cls,
      violations: v.violations,
      ...(v.deviation ? { deviation: v.deviation } : {}),
    }
  }

  try {
    let done = 0
    for (const [index, c] of cases.entries()) {
      const before = target.client.stats().requests
      const t0 = performance.now()
      const j = await run(c, index)
      const po = (perOperation[c.operation] ??= { cases: 0, requests: 0, ms: 0 })
      po.cases++
      po.requests += target.client.stats().requests - before
      po.ms += performance.now() - t0
      if (j === 'skipped') {
        if (skipped++ < 20) skippedCases.push(caseLine(c))
      } else {
        sent++
        if (j) {
          const key = signature(j)
          const g = groups.get(key)
          if (!g) groups.set(key, { best: j, count: 1 })
          else {
            g.count++
            if (smaller(j, g.best)) g.best = j
          }
        }
      }
      o.onProgress?.(++done, cases.length, groups.size)
    }
  } catch (e) {
    if (e instanceof BudgetSpent) incomplete = `the request budget (--max-requests ${e.limit}) was spent`
    else if (e instanceof DeadlineReached) incomplete = 'the deadline (--deadline) passed'
    else throw e
  }

  if (!incomplete && o.invariants !== false && !o.cases) {
    try {
      let k = cases.length
      for (const j of await invariantFindings(ops, sides.target, sides.model, apis)) {
        const key = signature(j)
        if (!groups.has(key)) groups.set(key, { best: { ...j, index: k++ }, count: 1 })
      }
    } catch (e) {
      if (e instanceof BudgetSpent) incomplete = `the request budget (--max-requests ${e.limit}) was spent`
      else if (e instanceof DeadlineReached) incomplete = 'the deadline (--deadline) passed'
      else throw e
    }
  }

  const findings: (Finding & { index: number })[] = []
  for (const [key, g] of groups) {
    let best = g.best
    let shrinkRequests = 0
    if (!incomplete && !best.noShrink) {
      const before = target.client.stats().requests
      try {
        best = await shrink(best, key, (c) => run(c, best.index), o.shrinkBudget ?? 12)
      } catch (e) {
        if (!(e instanceof BudgetSpent || e instanceof DeadlineReached)) throw e
        incomplete ??= 'the request budget or deadline ran out while shrinking'
      }
      shrinkRequests = target.client.stats().requests - before
    }
    const svc = best.c.api === 'mas' ? target.mas! : target.hs!
    const redact = (s: string) => target.client.redact(s)
    findings.push({
      id: '',
      cls: best.cls,
      ...(best.deviation ? { deviation: { id: best.deviation.id, kind: best.deviation.kind, fact: best.deviation.fact } } : {}),
      api: best.c.api,
      operation: best.c.operation,
      kind: best.c.kind,
      note: best.c.note,
      case: best.c,
      request: visible(
        redact(
          `${best.sent.method} ${svc.url}${best.sent.path}${best.sent.body !== undefined ? ` body ${best.sent.body}` : ''} [${best.sent.auth === 'admin' ? 'admin token' : best.sent.auth === 'user' ? 'non-admin token' : best.sent.auth === 'malformed' ? 'malformed token' : 'no token'}]`,
        ),
      ),
      curl: visible(redact(curlLine(best.c.api, svc.url, best.sent))),
      answer: { status: best.target.status, contentType: visible(best.target.contentType), body: visible(redact(best.target.text)) },
      model: { status: best.model.status, body: visible(best.model.text) },
      violations: best.violations,
      occurrences: g.count,
      shrinkRequests,
      index: best.index,
    })
  }
  // the worst first (a 5xx before other rules), then the smallest request, then the generated order, then
  // unexplained before known
  const rank = (f: Finding & { index: number }) => [
    f.violations.some((v) => v.rule === 'no-5xx') ? 0 : 1,
    sizeOf(f.case),
    f.index,
    CLASS_ORDER[f.cls],
  ]
  const order = (a: Finding & { index: number }, b: Finding & { index: number }) => {
    const ra = rank(a)
    const rb = rank(b)
    for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!
    return 0
  }
  const sorted = findings
    .sort(order)
    .map(({ index: _i, ...f }, n) => ({ ...f, id: `${f.api === 'mas' ? 'A' : 'B'}-${String(n + 1).padStart(3, '0')}` }))
  return {
    cases: cases.length,
    sent,
    requests: { target: target.client.stats().requests, model: model.client.stats().requests + strict.client.stats().requests },
    findings: sorted,
    perOperation,
    ...(incomplete ? { incomplete } : {}),
    skipped,
    skippedCases,
    durationMs: performance.now() - started,
  }
}

/** The listing invariants on the target and the model (invariants.ts), as judged findings. */
async function invariantFindings(
  ops: Map<string, Operation>,
  target: Asker,
  model: Asker,
  apis: { mas: boolean; hs: boolean },
): Promise<Judged[]> {
  const singles = new Set([...ops.values()].filter((op) => op.method === 'GET').map((op) => op.template))
  const askOn = (a: Asker) => async (c: Case) => {
    const sent = await a.resolve(c)
    const answer = sent && (await a.ask(c, sent))
    return sent && answer ? { sent, answer } : undefined
  }
  const out: Judged[] = []
  for (const op of ops.values()) {
    if (op.method !== 'GET' || op.template.includes('{') || !op.doc.query || !apis[op.api]) continue
    const params = queryParams(op.doc.query)
    const filters =
      op.api === 'hs'
        ? params
            .filter((p) => p.name === 'user_id')
            .map((p) => ({
              name: p.name,
              value: (first: Record<string, unknown>) => (typeof first.user_id === 'string' ? first.user_id : undefined),
            }))
        : params
            .filter((p) => !p.paging && p.kind.kind === 'enum')
            .map((p) => ({ name: p.name, value: () => (p.kind as { values: string[] }).values[0] }))
    const names = params.filter((p) => !p.paging).map((p) => p.name)
    // the model's walk as the peer: an item both hold is compared by value (invariants.ts)
    const t = await listingProblems(op, askOn(target), singles, filters, names, askOn(model))
    if (t.length === 0) continue
    const m = await listingProblems(op, askOn(model), singles, filters, names)
    for (const p of t) {
      const modelAnswer = (await askOn(model)(p.c))?.answer ?? { status: 0, contentType: '', text: '' }
      const cls: FindingClass = m.some((x) => x.check === p.check) ? 'model-gap' : 'target-defect'
      out.push({
        noShrink: true,
        c: p.c,
        index: 0,
        sent: p.asked.sent,
        target: p.asked.answer,
        model: modelAnswer,
        cls,
        violations: [p.violation],
      })
    }
  }
  return out
}

/**
 * Delta steps: drop a query parameter, then the body, keeping each step whose answer is still the same
 * finding (same signature). Values are not shrunk: the catalog's values are already the edge they test.
 */
async function shrink(j: Judged, key: string, run: (c: Case) => Promise<Judged | undefined | 'skipped'>, budget: number): Promise<Judged> {
  let best = j
  let steps = 0
  let changed = true
  while (changed && steps < budget) {
    changed = false
    const candidates: Case[] = best.c.query.map((_, i) => ({ ...best.c, query: best.c.query.filter((__, k) => k !== i) }))
    if (best.c.body !== undefined) {
      const { body: _b, ...rest } = best.c
      void _b
      candidates.push(rest)
    }
    for (const c of candidates) {
      if (steps++ >= budget) break
      const r = await run(c)
      if (r && r !== 'skipped' && signature(r) === key) {
        best = r
        changed = true
        break
      }
    }
  }
  return best
}

/** A client for one side, with the command's manners for the target and none for the in-process model. */
export function clientFor(opts: {
  allowWrites: boolean
  userAgent: string
  secrets: string[]
  requestTimeoutMs?: number
  rate?: number
  maxRequests?: number
  deadlineS?: number
  maxResponseBytes?: number
}): HttpClient {
  return new HttpClient({
    allowWrites: opts.allowWrites,
    connectTimeoutMs: DEFAULT_TIMEOUTS.connectMs,
    requestTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestMs,
    userAgent: opts.userAgent,
    secrets: opts.secrets,
    ...(opts.maxResponseBytes !== undefined ? { maxResponseBytes: opts.maxResponseBytes } : {}),
    ...(opts.rate !== undefined ? { requestsPerSecond: opts.rate } : {}),
    ...(opts.maxRequests !== undefined ? { maxRequests: opts.maxRequests } : {}),
    ...(opts.deadlineS ? { deadlineAt: Date.now() + opts.deadlineS * 1000 } : {}),
  })
}
