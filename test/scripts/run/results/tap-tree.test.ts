// Reading results from the TAP stream: outcomes of checks (pass, fail, skip, and deviation: a TODO whose
// reason starts with 'deviation: '), failures with their diagnostics but without tap's stack and source,
// skip reasons grouped, `# ac-leftover {json}` comments, and --strict turning deviations into failures.
import t from 'tap'
import { Parser } from 'tap-parser'
import { Collector } from '../../../../scripts/run/results/collect.ts'
import { groupSkips } from '../../../../scripts/run/results/results.ts'
import { attach, newNode } from '../../../../scripts/run/results/tap-tree.ts'
import { leftoverComment, parseLeftoverComment } from '../../../../lib/target.ts'

// The shape tap's runner gives: one subtest per suite file, checks inside, assertions inside those.
const STREAM = `TAP version 14
# Subtest: suites/admin/x.suite.ts
    # Subtest: x: passes
        ok 1 - fine
        1..1
    ok 1 - x: passes # time=1ms
    # Subtest: x: deviates
        ok 1 - fine
        not ok 2 - old token → 401 # TODO deviation: MAS 0.x answers 200 here
          ---
          request: GET http://127.0.0.1:1/api/admin/v1/x
          status: 200
          ...
        1..2
    ok 2 - x: deviates # time=1ms
    # ${leftoverComment({ target: 'mas', kind: 'compat session', id: '01ABC', reason: 'finish answered 500' })}
    # Subtest: x: fails
        not ok 1 - the following page holds the one remaining report
          ---
          request: GET http://127.0.0.1:1/api/admin/v1/x?page[after]=1
          status: 200
          response: '{"data":[]}'
          expected: 1 item
          rule: interface §3.2
          curl: >-
            curl -H "Authorization: Bearer $MAS_ADMIN_TOKEN" 'http://127.0.0.1:1/api/admin/v1/x?page[after]=1'
          at:
            fileName: suites/lib/suite.ts
            lineNumber: 10
          stack: |
            suites/lib/suite.ts:10:3
          source: |
            harness code
          ...
        1..1
    not ok 3 - x: fails # time=1ms
    ok 4 - x: writes # SKIP needs --allow-writes
    ok 5 - x: writes too # SKIP needs --allow-writes
    ok 6 - x: user # SKIP needs a user token
    1..6
not ok 1 - suites/admin/x.suite.ts # time=10ms
1..1
`

function parse(strict: boolean) {
  const col = new Collector(false, strict)
  const p = new Parser()
  attach(p, newNode(''), (n) => col.file(n))
  p.end(STREAM)
  return col
}

t.test('outcomes, diagnostics and leftovers', async (t) => {
  const col = parse(false)
  t.equal(col.suites.length, 1, 'one suite file')
  const s = col.suites[0]!
  t.equal(s.area, 'admin', 'the area from the areas table')
  t.same(
    s.checks.map((c) => [c.name, c.outcome]),
    [
      ['x: passes', 'pass'],
      ['x: deviates', 'deviation'],
      ['x: fails', 'fail'],
      ['x: writes', 'skip'],
      ['x: writes too', 'skip'],
      ['x: user', 'skip'],
    ],
  )
  t.same([s.pass, s.fail, s.skip, s.deviation], [1, 1, 3, 1], 'counted apart')
  const dev = s.checks[1]!.deviations[0]!
  t.equal(dev.reason, 'MAS 0.x answers 200 here', 'the deviation reason without its prefix')
  t.equal(dev.diag?.status, 200, 'the deviation keeps its diagnostics')
  const f = s.checks[2]!.failures[0]!
  t.equal(f.name, 'the following page holds the one remaining report')
  t.match(
    f.diag,
    {
      status: 200,
      response: '{"data":[]}',
      expected: '1 item',
      rule: 'interface §3.2',
      curl: /^curl -H "Authorization: Bearer \$MAS_ADMIN_TOKEN"/,
    },
    'the suite diagnostics are kept',
  )
  t.notOk('at' in f.diag! || 'stack' in f.diag! || 'source' in f.diag!, "tap's own stack, source and position are dropped")
  t.same(
    s.leftovers,
    [
      {
        target: 'mas',
        kind: 'compat session',
        id: '01ABC',
        reason: 'finish answered 500',
        what: 'compat session 01ABC on the auth service',
      },
    ],
    'the leftover comment is read',
  )
  t.same(
    groupSkips(s.checks),
    [
      { reason: 'needs --allow-writes', count: 2 },
      { reason: 'needs a user token', count: 1 },
    ],
    'skip reasons grouped, most first',
  )
  t.same(col.names.get('suites/admin/x.suite.ts')!.length, 6, 'every check name is remembered')
})

t.test('--strict counts a deviation as a failure', async (t) => {
  const s = parse(true).suites[0]!
  t.equal(s.checks[1]!.outcome, 'fail', 'the deviating check fails')
  t.equal(s.checks[1]!.failures[0]!.diag?.deviation, 'MAS 0.x answers 200 here', 'its failure names the deviation')
  t.same([s.pass, s.fail, s.deviation], [1, 2, 0])
})

t.test('leftover comments: only well-formed ones', async (t) => {
  t.same(parseLeftoverComment('# ac-leftover {"target":"hs","kind":"event report","id":"7","reason":"delete answered 500"}'), {
    target: 'hs',
    kind: 'event report',
    id: '7',
    reason: 'delete answered 500',
    what: 'event report 7 on the homeserver',
  })
  t.same(parseLeftoverComment('# ac-leftover {"what":"report 7"}'), { what: 'report 7' })
  t.equal(parseLeftoverComment('# ac-leftover not json'), undefined)
  t.equal(parseLeftoverComment('# ac-leftover [1]'), undefined)
  t.equal(parseLeftoverComment('# something else {"what":"x"}'), undefined)
})

t.test('a file an interruption stopped is not a failure; a file that never ran neither', async (t) => {
  const col = new Collector(false, false)
  const p = new Parser()
  attach(p, newNode(''), (n) => col.file(n))
  p.end(`TAP version 14
# Subtest: suites/admin/a.suite.ts
    ok 1 - a: one
    1..1
ok 1 - suites/admin/a.suite.ts
# Subtest: suites/admin/b.suite.ts
    ok 1 - b: one
not ok 2 - suites/admin/b.suite.ts
  ---
  signal: SIGTERM
  ...
`)
  col.finish(['suites/admin/a.suite.ts', 'suites/admin/b.suite.ts', 'suites/admin/c.suite.ts'], true, 'SIGTERM')
  t.same(
    col.suites.map((s) => [s.file, s.ok, s.error, s.notRun]),
    [
      ['suites/admin/a.suite.ts', true, undefined, undefined],
      ['suites/admin/b.suite.ts', false, undefined, 'interrupted before it finished'],
      ['suites/admin/c.suite.ts', false, undefined, 'interrupted before it ran'],
    ],
  )
  const dead = new Collector(false, false)
  dead.finish(['suites/admin/c.suite.ts'], false, '1')
  t.match(dead.suites[0]!.error, /no result/, 'without an interruption a missing file is a failure')
})
