// Stateful sequences (with --allow-writes): fast-check's model-based testing draws sequences of writes
// and reads, sends each step to the target and to the model (the bundled mock claiming the target's
// releases, as the release and strict, sent the same writes) and compares what each step shows: status,
// errcode and the values the step is about. A step where the target matches neither model fails the run;
// fast-check shrinks the sequence to the shortest one that still fails, which is the finding. The steps
// of each family are in sequences/: users (create, lock, unlock, deactivate, reactivate, set-admin, once,
// twice, twice at once), sessions (personal create, revoke, regenerate, use; compat and OAuth 2.0 finish),
// admin writes (registration tokens, user e-mails, upstream links) and reports (delete the side's own,
// file one through the client API, find it, read it, delete it).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { BudgetSpent, DeadlineReached } from '../../lib/http.ts'
import { visible } from '../../lib/escape.ts'
import type { Side } from './engine.ts'
import type { Seen, Shared, SideState } from './sequences/common.ts'
import { runUser, userArbitraries, userLine, userMakes, userNeeds, type UserStep } from './sequences/users.ts'
import {
  runSession,
  sessionArbitraries,
  sessionLine,
  sessionMakes,
  sessionNeeds,
  sessionReady,
  type SessionStep,
} from './sequences/sessions.ts'
import {
  adminWriteArbitraries,
  adminWriteLine,
  adminWriteMakes,
  adminWriteNeeds,
  adminWriteReady,
  runAdminWrite,
  type AdminWriteStep,
} from './sequences/admin-writes.ts'
import { reportArbitraries, reportLine, reportMakes, reportNeeds, reportReady, runReport, type ReportStep } from './sequences/reports.ts'

/** One step of a sequence, as data (a finding's steps are replayed from these). */
export type Step = UserStep | SessionStep | AdminWriteStep | ReportStep

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
  /** only the step families named (default: all the target's APIs have) */
  families?: Family[]
}

export type Family = 'users' | 'sessions' | 'admin-writes' | 'reports'

const USER_OPS = new Set(['create-user', 'user-act', 'get-user'])
const SESSION_OPS = new Set(['personal', 'finish', 'get-session'])
const ADMIN_OPS = new Set(['regtoken', 'email', 'link'])
const REPORT_OPS = new Set(['delete-report', 'get-report', 'file-report', 'filed'])

const familyOf = (s: Step): Family =>
  USER_OPS.has(s.op) ? 'users' : SESSION_OPS.has(s.op) ? 'sessions' : ADMIN_OPS.has(s.op) ? 'admin-writes' : 'reports'

/** Run one step on one side; what it showed. */
function runStep(s: SideState, step: Step): Promise<{ seen: Seen; line: string }> {
  switch (familyOf(step)) {
    case 'users':
      return runUser(s, step as UserStep)
    case 'sessions':
      return runSession(s, step as SessionStep)
    case 'admin-writes':
      return runAdminWrite(s, step as AdminWriteStep)
    case 'reports':
      return runReport(s, step as ReportStep)
  }
}

/** Why the step cannot run on this side (then it is skipped on every side), or undefined. */
async function ready(s: SideState, step: Step): Promise<string | undefined> {
  switch (familyOf(step)) {
    case 'users':
      return undefined
    case 'sessions':
      return sessionReady(s, step as SessionStep)
    case 'admin-writes':
      return adminWriteReady(s, step as AdminWriteStep)
    case 'reports':
      return reportReady(s, step as ReportStep)
  }
}

export function stepLine(s: Step): string {
  switch (familyOf(s)) {
    case 'users':
      return userLine(s as UserStep)
    case 'sessions':
      return sessionLine(s as SessionStep)
    case 'admin-writes':
      return adminWriteLine(s as AdminWriteStep)
    case 'reports':
      return reportLine(s as ReportStep)
  }
}

const needs = (s: Step): string[] =>
  ({ users: userNeeds, sessions: sessionNeeds, 'admin-writes': adminWriteNeeds, reports: reportNeeds })[familyOf(s)](s as never)
const makes = (s: Step): string[] =>
  ({ users: userMakes, sessions: sessionMakes, 'admin-writes': adminWriteMakes, reports: reportMakes })[familyOf(s)](s as never)

/** Per side (target, model, strict), kept across the runs of one exploration. */
export interface SharedState {
  sides: Shared[]
  /** why steps were skipped, each reason once */
  skipped: Set<string>
  /** the steps run on every side, by operation (reports: and kind) */
  ran: Map<string, number>
}

export const freshShared = (): SharedState => ({
  sides: [0, 1, 2].map(() => ({ lists: new Map(), next: new Map() })),
  skipped: new Set(),
  ran: new Map(),
})

/** Run the steps on the target and both models, each sequence on fresh users; the first difference. */
export async function runSequence(
  sides: { target: Side; model: Side; strict: Side },
  steps: Step[],
  tag: string,
  shared: SharedState = freshShared(),
  /** each step's answers as they come (target, model, strict), for a trace */
  onStep?: (i: number, seen: Seen[]) => void,
): Promise<SequenceFinding | undefined> {
  const states = [sides.target, sides.model, sides.strict].map((side, i): SideState => ({
    side,
    tag,
    users: new Map(),
    times: new Map(),
    shared: shared.sides[i]!,
    picked: new Map(),
    made: new Map(),
    tokens: new Map(),
  }))
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!
    // a step on what one side does not have (a real server holds fewer reports than the model, lists no
    // provider, or its sessions cannot be told from the run's own) is skipped on every side
    const why = (await Promise.all(states.map((st) => ready(st, step)))).find((x) => x !== undefined)
    if (why !== undefined) {
      shared.skipped.add(why)
      continue
    }
    const [t, m, s] = await Promise.all(states.map((st) => runStep(st, step)))
    onStep?.(i, [t!.seen, m!.seen, s!.seen])
    const op = 'kind' in step ? `${step.op} ${step.kind}` : step.op
    shared.ran.set(op, (shared.ran.get(op) ?? 0) + 1)
    if (t!.seen !== m!.seen && t!.seen !== s!.seen)
      return { steps: steps.slice(0, i + 1), at: i, request: t!.line, target: t!.seen, model: m!.seen }
  }
  return undefined
}

interface Drawn {
  steps: Step[]
  made: Set<string>
}

/** Steps as fast-check commands: each drawn step runs on every side; a difference fails the sequence. */
function commandsFor(o: SequenceOptions) {
  const want = (f: Family) => !o.families || o.families.includes(f)
  const families: fc.Arbitrary<Step>[][] = []
  if (o.apis.mas && want('users')) families.push(userArbitraries())
  if (o.apis.mas && want('sessions')) families.push(sessionArbitraries())
  if (o.apis.mas && want('admin-writes')) families.push(adminWriteArbitraries())
  if (o.apis.hs && want('reports')) families.push(reportArbitraries())
  // each family drawn as often as another, whatever its number of steps (its own weights kept inside);
  // a step on a user none made yet is preceded by its creation (add)
  const steps: fc.Arbitrary<Step>[] = families.flatMap((f) => {
    const one = fc.oneof(...f)
    return [one, one, one]
  })
  return steps.map(
    (arb) =>
      arb.map(
        (step) =>
          ({
            check: () => true,
            run: async (m: Drawn) => add(m, step),
            toString: () => stepLine(step),
          }) as fc.AsyncCommand<Drawn, unknown>,
      ) as fc.Arbitrary<fc.AsyncCommand<Drawn, unknown>>,
  )
}

/** The step that makes what another step needs (`user:0`, `personal:1`, …). */
function maker(key: string): Step {
  const [family, a, b] = key.split(':') as [string, string, string?]
  const n = Number(b ?? a)
  switch (family) {
    case 'user':
      return { op: 'create-user', user: n }
    case 'personal':
      return { op: 'personal', act: 'create', slot: n, user: 0 }
    case 'regtoken':
      return { op: 'regtoken', act: 'create', slot: n }
    case 'email':
    case 'link':
      return { op: family, act: 'add', slot: n, user: 0 }
    default:
      return { op: 'file-report', kind: a as ReportStep['kind'], slot: n }
  }
}

/**
 * Add a drawn step to the sequence, after the steps that make what it needs when none did before (acting
 * on a user, a session, a token needs it made first; acting on one that is gone is a step of its own:
 * acting after a deactivation, a revoke, a delete). So every drawn step counts, and shrinking a sequence
 * keeps the steps a later step needs.
 */
function add(m: Drawn, step: Step): void {
  for (const k of needs(step)) if (!m.made.has(k)) add(m, maker(k))
  m.steps.push(step)
  for (const k of makes(step)) m.made.add(k)
}

/**
 * Draw sequences, run each on fresh users (a tag per run) and shrink a failing one with fast-check. The
 * commands only collect their steps; the sequence is then run on the three sides at once, so that a run
 * shrunk by fast-check starts again from the first step on new users.
 */
export async function exploreSequences(
  sides: { target: Side; model: Side; strict: Side },
  o: SequenceOptions,
): Promise<{ finding?: SequenceFinding; runs: number; steps: number; skipped: string[]; ran: Record<string, number> }> {
  let run = 0
  let ran = 0
  let found: SequenceFinding | undefined
  const shared = freshShared()
  const commands = commandsFor(o)
  if (commands.length === 0) return { runs: 0, steps: 0, skipped: ['no step family applies to the target'], ran: {} }
  const prop = fc.asyncProperty(fc.commands(commands, { maxCommands: 10, size: 'medium' }), async (cmds) => {
    const model: Drawn = { steps: [], made: new Set() }
    await fc.asyncModelRun(() => ({ model, real: {} }), cmds)
    if (model.steps.length === 0) return true
    run += 1
    ran += model.steps.length
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
  return {
    ...(found ? { finding: found } : {}),
    runs: run,
    steps: ran,
    skipped: [...shared.skipped],
    ran: Object.fromEntries([...shared.ran].sort()),
  }
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

const OPS = new Set([...USER_OPS, ...SESSION_OPS, ...ADMIN_OPS, ...REPORT_OPS])

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
