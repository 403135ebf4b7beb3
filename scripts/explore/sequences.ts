// Stateful sequences (with --allow-writes): fast-check's model-based testing draws sequences of writes
// and reads (create a user, act on it — lock, unlock, deactivate, reactivate, set-admin —, act twice, act
// from two clients at once, read it again; delete a report, read it, delete it again), sends each step to
// the target and to the model (the bundled mock claiming the target's releases, as the release and strict,
// sent the same writes) and compares what each step shows: status, errcode and the values the step is
// about (the admin flag, whether locked or deactivated, whether a second act moved a time). A step where
// the target matches neither model fails the run; fast-check shrinks the sequence to the shortest one
// that still fails, which is the finding.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { BudgetSpent, DeadlineReached } from '../../lib/http.ts'
import { visible } from '../../lib/escape.ts'
import type { Side } from './engine.ts'

/** One step of a sequence, as data (a finding's steps are replayed from these). */
export type Step =
  | { op: 'create-user'; user: number }
  | {
      op: 'user-act'
      user: number
      act: 'lock' | 'unlock' | 'deactivate' | 'reactivate' | 'set-admin' | 'unset-admin'
      twice?: 'serial' | 'parallel'
    }
  | { op: 'get-user'; user: number }
  | { op: 'delete-report'; kind: 'event_reports' | 'user_reports'; report: number }
  | { op: 'get-report'; kind: 'event_reports' | 'user_reports'; report: number }

/** What a step showed on one side: compared between the sides, never the side's own data. */
type Seen = string

interface SideState {
  side: Side
  /** the id of each user created in this sequence, by its number */
  users: Map<number, string>
  /** the last locked_at / deactivated_at each user showed */
  times: Map<number, { locked?: unknown; deactivated?: unknown }>
  /** the report ids of each listing, sampled once per exploration (shared by its runs) */
  reports: Map<string, string[]>
  /** this run's first report: each run deletes its own reports, so that a run shrunk alone repeats */
  base: number
}

export interface SequenceFinding {
  steps: Step[]
  /** the step that differed, its request line and what each side showed */
  at: number
  request: string
  target: Seen
  model: Seen
}

export interface SequenceOptions {
  seed: number
  /** sequences drawn (fast-check's numRuns) */
  runs: number
  /** a prefix of the usernames created, unique per run */
  tag: string
  apis: { mas: boolean; hs: boolean }
}

const errcodeOf = (json: unknown) => {
  const j = json as { errcode?: unknown; errors?: { title?: unknown }[] } | undefined
  return typeof j?.errcode === 'string' ? j.errcode : ''
}

async function send(
  s: SideState,
  api: 'mas' | 'hs',
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown; line: string }> {
  const svc = api === 'mas' ? s.side.mas : s.side.hs
  if (!svc) throw new Error(`no ${api} on this side`)
  const prefix = api === 'mas' ? '/api/admin/v1' : `${s.side.prefixes.hsPrefix}/admin/v1`
  const res = await s.side.client.request(svc.url, prefix + path, {
    method,
    token: svc.adminToken ?? null,
    ...(body !== undefined ? { body } : {}),
  })
  return { status: res.status, json: res.json, line: `${method} ${prefix}${path}` }
}

function userView(s: SideState, user: number, json: unknown, act?: string): string {
  const a = ((json as { data?: { attributes?: Record<string, unknown> } } | undefined)?.data?.attributes ?? {}) as Record<string, unknown>
  const prev = s.times.get(user) ?? {}
  const moved = (k: 'locked' | 'deactivated', v: unknown) => prev[k] !== undefined && prev[k] !== null && v !== null && v !== prev[k]
  const out = {
    admin: a.admin,
    locked: a.locked_at !== null && a.locked_at !== undefined,
    deactivated: a.deactivated_at !== null && a.deactivated_at !== undefined,
    // a second lock (deactivate) keeps the time of the first
    lockedAtMoved: act === 'lock' ? moved('locked', a.locked_at) : false,
    deactivatedAtMoved: act === 'deactivate' ? moved('deactivated', a.deactivated_at) : false,
  }
  s.times.set(user, { locked: a.locked_at, deactivated: a.deactivated_at })
  return JSON.stringify(out)
}

async function reportId(s: SideState, kind: string, n: number): Promise<string | undefined> {
  if (!s.reports.has(kind)) {
    const r = await send(s, 'hs', 'GET', `/${kind}?limit=500&dir=f`)
    const items = (r.json as Record<string, unknown> | undefined)?.[kind]
    s.reports.set(kind, Array.isArray(items) ? items.map((x) => String((x as { id?: unknown }).id)) : [])
  }
  return s.reports.get(kind)![s.base + n]
}

/** Run one step on one side; what it showed. */
async function runStep(s: SideState, step: Step): Promise<{ seen: Seen; line: string }> {
  const shown = (r: { status: number; json: unknown; line: string }, extra = '') => ({
    seen: `${r.status}${errcodeOf(r.json) ? ` ${errcodeOf(r.json)}` : ''}${extra ? ` ${extra}` : ''}`,
    line: r.line,
  })
  switch (step.op) {
    case 'create-user': {
      const r = await send(s, 'mas', 'POST', '/users', { username: `${tagOf(s)}-${step.user}` })
      const id = (r.json as { data?: { id?: unknown } } | undefined)?.data?.id
      if (typeof id === 'string') s.users.set(step.user, id)
      return shown(r, r.status < 300 ? userView(s, step.user, r.json) : '')
    }
    case 'get-user':
    case 'user-act': {
      const id = s.users.get(step.user) ?? '01JAAAAAAAAAAAAAAAAAAAAAAA'
      if (step.op === 'get-user') {
        const r = await send(s, 'mas', 'GET', `/users/${id}`)
        return shown(r, r.status === 200 ? userView(s, step.user, r.json) : '')
      }
      const act = step.act === 'unset-admin' ? 'set-admin' : step.act
      const body = act === 'set-admin' ? { admin: step.act === 'set-admin' } : undefined
      const once = () => send(s, 'mas', 'POST', `/users/${id}/${act}`, body)
      if (step.twice === 'parallel') {
        const [a, b] = await Promise.all([once(), once()])
        // the order the two answers arrive in is not compared
        return { seen: [a.status, b.status].sort().join('+'), line: `${a.line} (twice at once)` }
      }
      if (step.twice === 'serial') await once()
      const r = await once()
      return shown(r, r.status === 200 ? userView(s, step.user, r.json, act) : '')
    }
    case 'delete-report':
    case 'get-report': {
      const id = (await reportId(s, step.kind, step.report)) ?? '999999999'
      const r = await send(s, 'hs', step.op === 'get-report' ? 'GET' : 'DELETE', `/${step.kind}/${id}`)
      return shown(r)
    }
  }
}

const tags = new WeakMap<SideState, string>()
const tagOf = (s: SideState) => tags.get(s) ?? 'explore'

function stepLine(s: Step): string {
  switch (s.op) {
    case 'create-user':
      return `create user u${s.user}`
    case 'get-user':
      return `get user u${s.user}`
    case 'user-act':
      return `${s.act} u${s.user}${s.twice ? ` (twice${s.twice === 'parallel' ? ', at once' : ''})` : ''}`
    case 'delete-report':
      return `delete ${s.kind} #${s.report}`
    case 'get-report':
      return `get ${s.kind} #${s.report}`
  }
}
export { stepLine }

/** Run the steps on the target and both models, each sequence on fresh users; the first difference. */
export async function runSequence(
  sides: { target: Side; model: Side; strict: Side },
  steps: Step[],
  tag: string,
  shared: { reports: Map<string, string[]>[]; base: number } = { reports: [new Map(), new Map(), new Map()], base: 0 },
): Promise<SequenceFinding | undefined> {
  const states = [sides.target, sides.model, sides.strict].map((side, i) => {
    const st: SideState = { side, users: new Map(), times: new Map(), reports: shared.reports[i]!, base: shared.base }
    tags.set(st, tag)
    return st
  })
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!
    // a report step needs the report on every side (a real server may hold fewer than the model)
    if (step.op === 'delete-report' || step.op === 'get-report') {
      const ids = await Promise.all(states.map((st) => reportId(st, step.kind, step.report)))
      if (ids.some((id) => id === undefined)) continue
    }
    const [t, m, s] = await Promise.all(states.map((st) => runStep(st, step)))
    if (t!.seen !== m!.seen && t!.seen !== s!.seen)
      return { steps: steps.slice(0, i + 1), at: i, request: t!.line, target: t!.seen, model: m!.seen }
  }
  return undefined
}

interface Drawn {
  steps: Step[]
  created: Set<number>
}

/** Steps as fast-check commands: each drawn step runs on every side; a difference fails the sequence. */
function commandsFor(apis: { mas: boolean; hs: boolean }) {
  const user = fc.integer({ min: 0, max: 1 })
  const acts = fc.constantFrom('lock', 'unlock', 'deactivate', 'reactivate', 'set-admin', 'unset-admin') as fc.Arbitrary<
    Extract<Step, { op: 'user-act' }>['act']
  >
  const kind = fc.constantFrom('event_reports', 'user_reports') as fc.Arbitrary<'event_reports' | 'user_reports'>
  const steps: fc.Arbitrary<Step>[] = []
  if (apis.mas)
    steps.push(
      user.map((u) => ({ op: 'create-user', user: u }) as Step),
      user.map((u) => ({ op: 'get-user', user: u }) as Step),
    )
  // acts drawn more often than the other steps: a sequence is mostly acts on the users it created
  const act = fc
    .record({ user, act: acts, twice: fc.constantFrom(undefined, undefined, 'serial', 'parallel') })
    .map(({ user, act, twice }) => ({ op: 'user-act', user, act, ...(twice ? { twice } : {}) }) as Step)
  if (apis.mas) steps.push(act, act, act, act)
  if (apis.hs)
    steps.push(
      fc.record({ kind, report: fc.integer({ min: 0, max: 2 }) }).map((r) => ({ op: 'delete-report', ...r }) as Step),
      fc.record({ kind, report: fc.integer({ min: 0, max: 2 }) }).map((r) => ({ op: 'get-report', ...r }) as Step),
    )
  // acting on a user needs it created first (acting on one that is gone is a step of its own: acting
  // after a deactivation); fast-check skips the commands whose check fails
  return steps.map(
    (arb) =>
      arb.map(
        (step) =>
          ({
            check: (m: Drawn) => (step.op === 'user-act' || step.op === 'get-user' ? m.created.has(step.user) : true),
            run: async (m: Drawn) => {
              m.steps.push(step)
              if (step.op === 'create-user') m.created.add(step.user)
            },
            toString: () => stepLine(step),
          }) as fc.AsyncCommand<Drawn, unknown>,
      ) as fc.Arbitrary<fc.AsyncCommand<Drawn, unknown>>,
  )
}

/**
 * Draw sequences, run each on fresh users (a tag per run) and shrink a failing one with fast-check. The
 * commands only collect their steps; the sequence is then run on the three sides at once, so that a run
 * shrunk by fast-check starts again from the first step on new users.
 */
export async function exploreSequences(
  sides: { target: Side; model: Side; strict: Side },
  o: SequenceOptions,
): Promise<{ finding?: SequenceFinding; runs: number }> {
  let run = 0
  let found: SequenceFinding | undefined
  const shared = { reports: [new Map(), new Map(), new Map()] as Map<string, string[]>[], base: 0 }
  const prop = fc.asyncProperty(fc.commands(commandsFor(o.apis), { maxCommands: 10, size: 'medium' }), async (cmds) => {
    const model: Drawn = { steps: [], created: new Set() }
    await fc.asyncModelRun(() => ({ model, real: {} }), cmds)
    if (model.steps.length === 0) return true
    run += 1
    shared.base = (run - 1) * 3
    const f = await runSequence(sides, model.steps, `${o.tag}-${run}`, shared)
    if (f && (!found || f.steps.length <= found.steps.length)) found = f
    return f === undefined
  })
  try {
    await fc.assert(prop, { seed: o.seed, numRuns: o.runs, endOnFailure: false })
  } catch (e) {
    if (e instanceof BudgetSpent || e instanceof DeadlineReached) throw e
    if (!found) throw e
  }
  return { ...(found ? { finding: found } : {}), runs: run }
}

/** A finding in words: its steps, the one that differed, and both answers, the target's escaped. */
export function sequenceText(f: SequenceFinding): string {
  return [
    ...f.steps.map((s, i) => `${i + 1}. ${stepLine(s)}${i === f.at ? `  ← ${visible(f.request)}` : ''}`),
    `target: ${visible(f.target)}`,
    `model:  ${visible(f.model)}`,
  ].join('\n')
}

export const SEQUENCE_FORMAT = 'admin-conformance-explore-sequence/1'

const OPS = new Set(['create-user', 'user-act', 'get-user', 'delete-report', 'get-report'])

/** Write the finding's steps as a sequence file (for --replay); its path. */
export function saveSequence(dir: string, f: SequenceFinding, meta: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, 'sequence.json')
  writeFileSync(file, JSON.stringify({ format: SEQUENCE_FORMAT, meta, steps: f.steps, target: f.target, model: f.model }, null, 2) + '\n')
  return file
}

/** The steps of a sequence file; undefined when the file is not one (a case file, a report). */
export function readSequence(file: string): Step[] | undefined {
  let doc: { format?: unknown; steps?: unknown }
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as typeof doc
  } catch {
    return undefined
  }
  if (doc.format !== SEQUENCE_FORMAT) return undefined
  const steps = doc.steps
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every((s) => s && typeof s === 'object' && OPS.has((s as Step).op)))
    throw new Error(`${file}: the steps are not in the form explore writes`)
  return steps as Step[]
}
