// Check registration and the assertion API a check sees. A check is a named top-level tap subtest. Its
// outcome is one of: passed (at least one assertion, none failed), failed, skipped with a reason (an
// unmet need, the target's version, a read-only run), or, for an assertion the target's release is known
// to get wrong (lib/data/deviations.json), a TAP TODO whose reason starts with "deviation: " (a failure
// under AC_STRICT=1). A check that asserted nothing fails, naming itself: it never counts as passed.
import tap, { type Test as TapTest } from 'tap'
import { isDeepStrictEqual } from 'node:util'
import { BudgetSpent, DeadlineReached, HttpError, ResponseTooLarge, WritesNotAllowed } from '../../lib/http.ts'
import { budgetReason, deadlineReason, noteBudgetStop, noteDeadlineStop } from './limits.ts'
import { contexts, current, endContextStore, isMatrix, runCleanups, runIn, type Context } from './context.ts'
import { Skip, WRITES_REASON, unmetNeed, type Need } from './needs.ts'
import { checkState, lastResponse, responseFields, type CheckState } from './failure.ts'
import { mapStrings, visible } from '../../lib/escape.ts'
import { isLarge, shortened } from './bounded.ts'

type Extra = Record<string, unknown>

/** The assertion API of a check (tap's names; failures carry the request, response, rule and curl). */
export interface Test {
  ok(value: unknown, message?: string, extra?: Extra): boolean
  notOk(value: unknown, message?: string, extra?: Extra): boolean
  equal(found: unknown, wanted: unknown, message?: string, extra?: Extra): boolean
  not(found: unknown, notWanted: unknown, message?: string, extra?: Extra): boolean
  same(found: unknown, wanted: unknown, message?: string, extra?: Extra): boolean
  match(found: unknown, pattern: unknown, message?: string, extra?: Extra): boolean
  type(found: unknown, klass: string | Function, message?: string, extra?: Extra): boolean
  pass(message?: string, extra?: Extra): boolean
  fail(message?: string, extra?: Extra): boolean
  comment(text: string): void
}

/** A known deviation in force for the running check (see lib/deviations.ts). */
export interface ActiveDeviation {
  id: string
  reason: string
}

// Strict conformance: AC_STRICT=1, and always in the fault matrix (the harness's own proof that it catches
// every departure from the interface, including one a release is known to have).
const strict = (): boolean => process.env.AC_STRICT === '1' || isMatrix()
let defaultRule: string | undefined

/** The interface rule the checks of this file come from, shown with every failure unless a check names its own. */
export function setDefaultRule(rule: string): void {
  defaultRule = rule
}

class Checker implements Test {
  /** assertions that proved or disproved something (not skips, not comments) */
  real = 0
  private pendingSkips: [string, string][] = []
  deviation?: ActiveDeviation

  constructor(
    private readonly tt: TapTest,
    readonly state: CheckState,
  ) {}

  /**
   * Extra fields of an assertion: the failure context (request, response, curl, rule); no harness stack.
   * tap shows them only for a failure (or when asked, `diagnostic: true`): for an assertion known to hold,
   * the context (a curl line and excerpts of the answer, redacted and escaped) is not made at all.
   */
  private extra(user: Extra | undefined, expected: unknown, holds: boolean | undefined): Extra {
    if (holds === true && user?.diagnostic !== true) return { ...user, at: null }
    const out: Extra = { ...responseFields(lastResponse()), ...(user ?? {}) }
    if (expected !== undefined && !('expected' in out)) out.expected = expected
    out.at = null
    delete out.stack
    return out
  }

  private flush(): void {
    for (const [m, why] of this.pendingSkips.splice(0)) this.tt.pass(m, { skip: why })
  }

  /** Emit one assertion; `holds` is the outcome when it can be known beforehand (needed for deviations). */
  private emit(holds: boolean | undefined, emitIt: (extra: Extra) => boolean, user: Extra | undefined, expected?: unknown): boolean {
    this.flush()
    this.real++
    const extra = this.extra(user, expected, holds)
    if (this.deviation && holds === false) {
      const reason = `deviation: ${this.deviation.reason}`
      if (strict()) extra.rule = `${extra.rule ? `${String(extra.rule)}; ` : ''}known ${reason} (AC_STRICT=1: counted as a failure)`
      else extra.todo = reason
    }
    return emitIt(extra)
  }

  ok(v: unknown, m?: string, e?: Extra): boolean {
    return this.emit(!!v, (x) => this.tt.ok(v, m ?? '', x), e)
  }
  notOk(v: unknown, m?: string, e?: Extra): boolean {
    return this.emit(!v, (x) => this.tt.notOk(v, m ?? '', x), e)
  }
  /** A comparison of large values, made here in full; tap is given its outcome and shortened values. */
  private large(holds: boolean, f: unknown, w: unknown, compare: string, m: string | undefined, e: Extra | undefined): boolean {
    const wanted = shortened(w)
    return this.emit(
      holds,
      (x) => (holds ? this.tt.pass(m ?? '', x) : this.tt.fail(m ?? '', { ...x, found: shortened(f), wanted, compare })),
      e,
      wanted,
    )
  }

  equal(f: unknown, w: unknown, m?: string, e?: Extra): boolean {
    if (isLarge(f) || isLarge(w)) return this.large(f === w, f, w, '===', m, e)
    return this.emit(f === w, (x) => this.tt.equal(f, w, m ?? '', x), e, w)
  }
  not(f: unknown, w: unknown, m?: string, e?: Extra): boolean {
    return this.emit(f !== w, (x) => this.tt.not(f, w, m ?? '', x), e, { not: w })
  }
  same(f: unknown, w: unknown, m?: string, e?: Extra): boolean {
    if (isLarge(f) || isLarge(w)) return this.large(isDeepStrictEqual(f, w), f, w, 'deep equality', m, e)
    return this.emit(isDeepStrictEqual(f, w), (x) => this.tt.same(f, w, m ?? '', x), e, w)
  }
  match(f: unknown, p: unknown, m?: string, e?: Extra): boolean {
    const holds = p instanceof RegExp ? p.test(String(f)) : undefined
    if (holds !== undefined && isLarge(f)) return this.large(holds, f, String(p), 'matches the pattern', m, e)
    return this.emit(holds, (x) => this.tt.match(f, p, m ?? '', x), e, String(p))
  }
  type(f: unknown, k: string | Function, m?: string, e?: Extra): boolean {
    return this.emit(undefined, (x) => this.tt.type(f, k, m ?? '', x), e, `a ${typeof k === 'string' ? k : k.name}`)
  }
  pass(m?: string, e?: Extra): boolean {
    if (e && typeof e.skip === 'string' && this.real === 0) {
      // A skipped part before anything was proved: held back, so that a check of skips only is a skip.
      this.pendingSkips.push([m ?? '', e.skip])
      return true
    }
    return this.emit(true, (x) => this.tt.pass(m ?? '', x), e)
  }
  fail(m?: string, e?: Extra): boolean {
    return this.emit(false, (x) => this.tt.fail(m ?? '', x), e)
  }
  comment(text: string): void {
    this.tt.comment(cleanText(text)!)
  }

  /** Close the check: skips only → skipped; nothing at all → failed, naming the check. */
  finish(skipReason?: string): void {
    if (this.real === 0) {
      const reasons = [...new Set([...(skipReason ? [skipReason] : []), ...this.pendingSkips.map(([, r]) => r)])]
      if (reasons.length) {
        this.pendingSkips = []
        this.tt.plan(0, cleanText(reasons.join('; ')))
        return
      }
      this.tt.fail(`the check "${this.state.name}" asserted nothing (a check that proves nothing is not a pass)`, {
        at: null,
        rule: 'a check that asserted nothing is never counted as passed',
      })
      return
    }
    this.flush()
    if (skipReason) this.tt.pass('the rest of the check', { skip: skipReason })
  }
}

/**
 * Every assertion of a check leaves this process clean: tap writes an assertion's message and its
 * diagnostics (found, wanted, diff, and the fields the failure context adds) as YAML, and YAML folds a
 * long line anywhere, also inside a token a target echoed back, where the runner's redaction can no
 * longer see it whole. So each string is redacted here, before tap serialises it, and every control,
 * format and separator character a target sent is escaped (lib/escape.ts), its newlines too except in
 * tap's own multi-line diff. tap's assertions all end in the test's pass() or fail(): those are wrapped.
 */
function cleanAssertions(tt: TapTest): void {
  type Emit = (message?: string, extra?: Extra) => boolean
  const t = tt as unknown as { pass: Emit; fail: Emit }
  const pass = t.pass
  const fail = t.fail
  t.pass = (m, e) => pass(cleanText(m), e && (e.diagnostic === true ? cleanExtra(e) : cleanReasons(e)))
  t.fail = (m, e) => fail(cleanText(m), e && cleanExtra(e))
}

function cleanText(s: string | undefined): string | undefined {
  return s === undefined ? s : visible(current().client.redact(s))
}

function cleanReasons(e: Extra): Extra {
  const out = { ...e }
  for (const k of ['skip', 'todo'] as const) if (typeof out[k] === 'string') out[k] = cleanText(out[k] as string)
  return out
}

function cleanExtra(e: Extra): Extra {
  const redact = (s: string) => current().client.redact(s)
  const out: Extra = {}
  for (const [k, v] of Object.entries(e)) {
    out[k] = mapStrings(v, (s) => visible(redact(s), { newlines: k === 'diff' ? 'keep' : 'escape' }))
  }
  return out
}

const checkers = new WeakMap<CheckState, Checker>()

/** The Checker of the running check (for deviation scopes). */
export function runningChecker(): Checker | undefined {
  const s = checkState.getStore()
  return s ? checkers.get(s) : undefined
}

function safeMessage(e: unknown): string {
  const err = e instanceof Error ? e : new Error(String(e))
  return current().client.redact(`${err.name === 'Error' ? '' : err.name + ': '}${err.message}`)
}

export interface CheckDef {
  name: string
  needs: readonly Need[]
  fn: (t: Test) => Promise<void> | void
  rule?: string
}

async function runCheck(tt: TapTest, def: CheckDef): Promise<void> {
  const state: CheckState = { name: def.name, rule: def.rule ?? defaultRule }
  cleanAssertions(tt)
  const c = new Checker(tt, state)
  checkers.set(state, c)
  await checkState.run(state, async () => {
    try {
      await def.fn(c)
      c.finish()
    } catch (e) {
      if (e instanceof Skip || e instanceof WritesNotAllowed) {
        c.finish(e instanceof Skip ? e.reason : WRITES_REASON)
      } else if (e instanceof BudgetSpent) {
        // Not a fault of the target: the run stops asking; the runner says where and fails the verdict.
        noteBudgetStop(current().target, def.name, e)
        c.finish(budgetReason(e))
      } else if (e instanceof DeadlineReached) {
        // The run is out of time: the runner names where it stopped and fails the verdict.
        noteDeadlineStop(current().target, def.name, e)
        c.finish(deadlineReason())
      } else if (e instanceof ResponseTooLarge) {
        c.fail(`the answer was too large (--max-response-size): ${e.message}`, { kind: e.kind, size: e.size, limit: e.limit })
      } else if (e instanceof HttpError) {
        c.fail(`no answer: ${e.message}`, { kind: e.kind })
      } else {
        // The message only: a harness stack trace or file path says nothing about the target.
        c.fail(`the check could not complete: ${safeMessage(e)}`)
      }
    } finally {
      // A timer made during the check (a connection's keep-alive, a pacer's wait) keeps this state as
      // its async store after the check: without this, each such state kept its last answer alive,
      // a whole parsed page, and against pages of megabytes a worker ran out of heap.
      delete state.last
    }
  })
}

/** Register one check as a subtest of `parent` (the file, or a matrix target group) for `ctx`. */
function register(parent: { test: TapTest['test'] }, ctx: Context, def: CheckDef): void {
  const reason = unmetNeed(def.needs, ctx.target)
  if (reason) {
    parent.test(def.name, { skip: reason, at: null } as object, () => {})
    return
  }
  // at: null: a failed check names the target's fault, not the harness line that registered it
  parent.test(def.name, { at: null } as object, (tt: TapTest) => runIn(ctx, () => runCheck(tt, def)))
}

let teardownSet = false
function ensureTeardown(): void {
  if (teardownSet) return
  teardownSet = true
  tap.teardown(async () => {
    for (const ctx of contexts()) {
      await runCleanups(ctx)
      await ctx.client.close()
      // A worker never unloads a file's module, so what its memos hold (walks of up to 1,200 items, the
      // pages' schema results) would stay alive for the rest of the run, one file's worth after another.
      ctx.memos.clear()
    }
    endCheckStores()
  })
}

/**
 * A worker runs many files, each with its own copy of this framework and so its own context store
 * (AsyncLocalStorage, in the fault matrix only): every store still enabled copies itself onto each new
 * promise of the process, so in the twelfth file of a worker each promise paid for twelve stores
 * (decision 0004). Disabled once the file's checks and clean-ups are over; a later run() would enable it
 * again.
 */
function endCheckStores(): void {
  endContextStore()
}

// In the matrix, checks are collected while the suite file is evaluated and then run per target.
const matrixDefs: CheckDef[] = []
let matrixScheduled = false

function scheduleMatrix(): void {
  if (matrixScheduled) return
  matrixScheduled = true
  const ready = new Promise<void>((resolve) => setImmediate(resolve))
  for (const ctx of contexts()) {
    tap.test(`target: ${ctx.label}`, async (t: TapTest) => {
      await ready
      for (const def of matrixDefs) register(t, ctx, def)
      t.teardown(() => runCleanups(ctx))
    })
  }
}

/**
 * One named check: a top-level tap subtest. It is skipped with the reason when a need is unmet, when it
 * throws Skip, or when it tries a mutating request on a read-only run. A request that got no answer
 * fails the check with the (redacted) reason; nothing a check throws can leak a token.
 */
export function check(name: string, needs: readonly Need[], fn: (t: Test) => Promise<void> | void, opts: { rule?: string } = {}): void {
  ensureTeardown()
  const def: CheckDef = { name, needs, fn, rule: opts.rule }
  if (isMatrix()) {
    matrixDefs.push(def)
    scheduleMatrix()
    return
  }
  register(tap, current(), def)
}

/** Say in the output that a check ran on an assumption (e.g. an unknown version). */
export function note(t: Test, text: string): void {
  t.comment(text)
}

/** The rule the running check's failures name from here on (e.g. a release's behaviour). */
export function setRule(rule: string): void {
  const s = checkState.getStore()
  if (s) s.rule = rule
}

/**
 * Something the checks could not undo (a report filed on a version without DELETE): one top-level TAP
 * comment line `# ac-leftover {json}` that the runner lists in its summary.
 */
export function leftover(item: { target: 'mas' | 'hs'; kind: string; id: string; reason: string }): void {
  const clean = (s: string) => visible(current().client.redact(s))
  const line = JSON.stringify({ target: item.target, kind: item.kind, id: clean(item.id), reason: clean(item.reason) })
  tap.comment(`ac-leftover ${line}`)
}
