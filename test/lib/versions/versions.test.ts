// lib/versions.ts: parsing, rollback boundaries, change lists, steps, features. Expected values are written
// out here (from spec/interface.md and the reference), not derived from lib/data, so a data slip shows.
import t from 'tap'
import {
  LEGACY_ADMIN_PREFIXES,
  MAS_FEATURE_NAMES,
  SYNAPSE_FEATURE_NAMES,
  VersionError,
  allChanges,
  backgroundUpdatesStatusPath,
  changesBetween,
  compareVersions,
  floorForRunningVersion,
  formatVersion,
  legacyAdminProbePaths,
  masHas,
  parseServerVersionString,
  parseVersion,
  planUpgrade,
  rollbackFloor,
  synapseHas,
  type FloorResult,
  type TableName,
} from '../../../lib/versions.ts'

t.test('parseVersion accepts vX.Y.Z and X.Y.Z', async (t) => {
  t.same(parseVersion('v1.2.3'), { major: 1, minor: 2, patch: 3 })
  t.same(parseVersion('1.2.3'), { major: 1, minor: 2, patch: 3 })
  t.same(parseVersion('0.0.0'), { major: 0, minor: 0, patch: 0 })
  t.same(parseVersion('v1.157.10'), { major: 1, minor: 157, patch: 10 })
  t.same(parseVersion(' v1.2.3 '), { major: 1, minor: 2, patch: 3 }, 'surrounding blanks are trimmed')
  t.equal(formatVersion(parseVersion('1.98.0')), 'v1.98.0')
})

t.test('parseVersion rejects bad input with a clear VersionError', async (t) => {
  const cases: [string, RegExp][] = [
    ['1.2.3rc1', /release candidate/],
    ['v1.2.3rc1', /release candidate/],
    ['1.2.3-rc.1', /release candidate/],
    ['1.2.3.rc1', /release candidate/],
    ['1.2', /has 2 numbers.*exactly three/],
    ['v1.2.3.4', /has 4 numbers.*exactly three/],
    ['1', /has 1 number,/],
    ['', /empty version/],
    ['   ', /empty version/],
    ['garbage', /is not a version/],
    ['v', /is not a version/],
    ['1.2.x', /is not a version/],
    ['V1.2.3', /is not a version/],
    ['1.2.3-beta', /text after the version number/],
    ['1.2.3 (b=develop)', /text after the version number/],
    ['01.2.3', /leading zero/],
    ['1.02.3', /leading zero/],
    ['1.2.3456789012', /too large/],
    ['-1.2.3', /is not a version/],
  ]
  for (const [input, msg] of cases) {
    t.throws(() => parseVersion(input), msg, JSON.stringify(input))
    try {
      parseVersion(input)
    } catch (e) {
      t.type(e, VersionError, `${JSON.stringify(input)} throws VersionError`)
    }
  }
  t.throws(() => parseVersion(42 as unknown as string), /must be a string/)
})

t.test('compareVersions orders numerically', async (t) => {
  t.equal(compareVersions('v1.9.0', 'v1.10.0'), -1)
  t.equal(compareVersions('v1.105.1', 'v1.105.0'), 1)
  t.equal(compareVersions('1.2.3', 'v1.2.3'), 0)
  t.equal(compareVersions(parseVersion('2.0.0'), 'v1.999.999'), 1)
})

t.test('parseServerVersionString takes the leading version', async (t) => {
  const ok: [string, string, string | null][] = [
    ['1.157.1', 'v1.157.1', null],
    ['1.157.1 (b=develop, abcdef1)', 'v1.157.1', '(b=develop, abcdef1)'],
    ['v1.4.0', 'v1.4.0', null],
    ['  1.98.0 ', 'v1.98.0', null],
  ]
  for (const [input, version, build] of ok) {
    const p = parseServerVersionString(input)
    t.ok(p.ok, JSON.stringify(input))
    if (p.ok) {
      t.equal(formatVersion(p.version), version)
      t.equal(p.build, build)
      t.equal(p.raw, input)
    }
  }
  const bad: [unknown, RegExp][] = [
    ['0.99.2rc1 (b=develop, abcdef123)', /release candidate/],
    ['1.2.3rc1', /release candidate/],
    ['v1.4.0-rc.1', /release candidate/],
    ['v1.4.0-12-gabcdef', /glued to the version/],
    ['1.2.3.4', /glued to the version/],
    ['develop', /does not start with a version/],
    ['1.2', /does not start with a version/],
    ['', /empty/],
    [null, /not a string/],
    [12, /not a string/],
    ['01.2.3', /leading zero/],
  ]
  for (const [input, reason] of bad) {
    const p = parseServerVersionString(input)
    t.notOk(p.ok, JSON.stringify(input))
    if (!p.ok) {
      t.equal(p.version, null)
      t.match(p.reason, reason, JSON.stringify(input))
    }
  }
})

// [first, last, floor] of every row, as the interface document lists them.
const INTERFACE_ROWS: [string, string, string][] = [
  ['v1.0.0', 'v1.2.1', 'v1.0.0'],
  ['v1.3.0', 'v1.8.0', 'v1.3.0'],
  ['v1.9.0', 'v1.12.4', 'v1.9.0'],
  ['v1.13.0', 'v1.25.0', 'v1.13.0'],
  ['v1.26.0', 'v1.44.0', 'v1.26.0'],
  ['v1.45.0', 'v1.47.1', 'v1.38.0'],
  ['v1.48.0', 'v1.51.0', 'v1.39.0'],
  ['v1.52.0', 'v1.57.1', 'v1.49.0'],
  ['v1.58.0', 'v1.61.1', 'v1.57.0'],
  ['v1.62.0', 'v1.63.1', 'v1.61.0'],
  ['v1.64.0', 'v1.69.0', 'v1.62.0'],
  ['v1.70.0', 'v1.82.0', 'v1.68.0'],
  ['v1.83.0', 'v1.84.1', 'v1.77.0'],
  ['v1.85.0', 'v1.91.2', 'v1.83.0'],
  ['v1.92.0', 'v1.97.0', 'v1.90.0'],
  ['v1.98.0', 'v1.102.0', 'v1.96.0'],
]
// The reference's rows (synapse-admin-api.md §4.1); null = open-ended.
const REFERENCE_ROWS: [string, string | null, string][] = [
  ...INTERFACE_ROWS.slice(0, -1),
  ['v1.98.0', 'v1.105.0', 'v1.96.0'],
  ['v1.105.1', null, 'v1.100.0'],
]

function floorOf(r: FloorResult): string | undefined {
  return r.kind === 'floor' ? formatVersion(r.floor) : undefined
}

function nextPatch(v: string): string {
  const p = parseVersion(v)
  return `v${p.major}.${p.minor}.${p.patch + 1}`
}

function prevPatch(v: string): string | null {
  const p = parseVersion(v)
  if (p.patch > 0) return `v${p.major}.${p.minor}.${p.patch - 1}`
  if (p.minor > 0) return `v${p.major}.${p.minor - 1}.99`
  return null
}

for (const [table, rows] of [
  ['interface', INTERFACE_ROWS],
  ['reference', REFERENCE_ROWS],
] as [TableName, [string, string | null, string][]][]) {
  t.test(`rollback boundaries: ${table} table`, async (t) => {
    rows.forEach(([first, last, floor], i) => {
      const a = rollbackFloor(first, { table })
      t.equal(floorOf(a), floor, `${first} (first of its range) -> ${floor}`)
      if (a.kind === 'floor') {
        t.equal(formatVersion(a.range.from), first)
        t.equal(a.range.to && formatVersion(a.range.to), last)
        t.equal(a.source, table)
        t.equal(a.table, table)
        t.equal(a.extrapolated, false)
      }
      if (last !== null) t.equal(floorOf(rollbackFloor(last, { table })), floor, `${last} (last of its range) -> ${floor}`)

      // Just outside, below: the previous row's last version, or (first row) the version before it.
      const prev = rows[i - 1]
      if (prev) {
        t.equal(floorOf(rollbackFloor(prev[1]!, { table })), prev[2], `${prev[1]} (just below ${first}) -> ${prev[2]}`)
        const gap = prevPatch(first)
        if (gap && gap !== prev[1] && compareVersions(gap, prev[1]!) > 0) {
          const g = rollbackFloor(gap, { table })
          t.equal(g.kind, 'not-covered', `${gap} between ${prev[1]} and ${first} is not covered`)
        }
      } else {
        const below = rollbackFloor('v0.99.0', { table })
        t.equal(below.kind, 'not-covered', 'v0.99.0 is before the first row')
        if (below.kind === 'not-covered') t.match(below.reason, /older than the first rollback range/)
      }
      // Just outside, above: the next row's first version, or a patch after the last version.
      const next = rows[i + 1]
      if (next) {
        t.equal(floorOf(rollbackFloor(next[0], { table })), next[2], `${next[0]} (just above ${last}) -> ${next[2]}`)
        const gap = nextPatch(last!)
        if (gap !== next[0]) {
          const g = rollbackFloor(gap, { table })
          t.equal(g.kind, 'not-covered', `${gap} after ${last} and before ${next[0]} is not covered`)
          if (g.kind === 'not-covered') t.match(g.reason, /falls between the rollback ranges/)
        }
      }
    })
  })
}

t.test('default table is the interface one; after v1.102.0 is beyond it, never a silent floor', async (t) => {
  t.equal(floorOf(rollbackFloor('v1.102.0')), 'v1.96.0')
  for (const v of ['v1.102.1', 'v1.103.0', 'v1.105.0', 'v1.105.1', 'v1.157.1', 'v2.0.0']) {
    const r = rollbackFloor(v)
    t.equal(r.kind, 'beyond-table', `${v} is beyond the interface table`)
    t.notOk('floor' in r, `${v} has no floor field`)
    if (r.kind === 'beyond-table') {
      t.equal(r.beyondTable, true)
      t.equal(formatVersion(r.lastRow.from), 'v1.98.0')
      t.equal(formatVersion(r.lastRow.to!), 'v1.102.0')
      t.equal(formatVersion(r.lastRow.floor), 'v1.96.0')
      t.equal(r.reference.kind, 'floor', 'the reference answer is attached')
    }
  }
  const r = rollbackFloor('v1.104.0')
  if (r.kind === 'beyond-table' && r.reference.kind === 'floor') t.equal(formatVersion(r.reference.floor), 'v1.96.0')
  const s = rollbackFloor('v1.105.1')
  if (s.kind === 'beyond-table' && s.reference.kind === 'floor') t.equal(formatVersion(s.reference.floor), 'v1.100.0')
})

t.test('reference table: open-ended last row is flagged past the observed releases', async (t) => {
  // v1.160.0: its installed code still has SCHEMA_COMPAT_VERSION 84, so the row was observed up to it.
  const seen = rollbackFloor('v1.160.0', { table: 'reference' })
  t.equal(floorOf(seen), 'v1.100.0')
  t.equal(seen.kind === 'floor' && seen.extrapolated, false)
  const later = rollbackFloor('v1.160.1', { table: 'reference' })
  t.equal(floorOf(later), 'v1.100.0')
  t.equal(later.kind === 'floor' && later.extrapolated, true)
  t.throws(() => rollbackFloor('v1.0.0', { table: 'bogus' as TableName }), /unknown rollback table/)
  t.throws(() => rollbackFloor('1.2'), VersionError)
})

t.test('floorForRunningVersion reads server_version strings', async (t) => {
  const r = floorForRunningVersion('1.100.0 (b=develop, abcdef1)')
  t.ok(r.ok)
  if (r.ok) {
    t.equal(formatVersion(r.version), 'v1.100.0')
    t.equal(r.build, '(b=develop, abcdef1)')
    t.equal(floorOf(r.result), 'v1.96.0')
  }
  const beyond = floorForRunningVersion('1.157.1')
  t.equal(beyond.ok && beyond.result.kind, 'beyond-table')
  const ref = floorForRunningVersion('1.157.1', { table: 'reference' })
  t.equal(ref.ok && floorOf(ref.result), 'v1.100.0')
  const rc = floorForRunningVersion('1.100.0rc1')
  t.notOk(rc.ok)
  if (!rc.ok) t.match(rc.reason, /release candidate/)
})

t.test('changesBetween: from < version <= to, oldest first', async (t) => {
  const cases: [string, string, string[]][] = [
    ['v1.90.0', 'v1.90.0', []],
    ['v1.100.0', 'v1.100.0', []],
    ['v1.90.0', 'v1.100.0', ['v1.93.0', 'v1.94.0', 'v1.100.0']],
    ['v1.89.0', 'v1.90.0', ['v1.90.0']],
    ['v1.90.0', 'v1.92.0', []],
    ['v1.78.0', 'v1.80.0', ['v1.79.0', 'v1.79.0', 'v1.80.0']],
    ['v1.0.0', 'v1.8.0', ['v1.7.0']],
    ['v0.99.0', 'v1.0.0', ['v1.0.0']],
    ['v1.22.0', 'v1.25.0', ['v1.24.0', 'v1.25.0']],
    ['v1.100.0', 'v1.157.1', ['v1.106.0', 'v1.122.0', 'v1.134.0', 'v1.150.0']],
    ['v1.157.1', 'v1.160.0', ['v1.158.0']],
    ['v1.67.0', 'v1.68.0', ['v1.68.0', 'v1.68.0']],
    ['v1.121.0', 'v1.122.0', ['v1.122.0']],
    ['v1.122.0', 'v1.133.9', []],
  ]
  for (const [from, to, versions] of cases) {
    t.same(
      changesBetween(from, to).map((c) => c.version),
      versions,
      `${from} -> ${to}`,
    )
  }
  const both = changesBetween('v1.78.0', 'v1.79.0')
  t.same(
    both.map((c) => c.source),
    ['interface', 'reference'],
    'same version: interface row first',
  )
  t.match(both[1]?.actions[0], { kind: 'endpoint-added', method: 'DELETE', path: '/_synapse/admin/v1/event_reports/<report_id>' })
  t.same(
    changesBetween('v1.90.0', 'v1.100.0', { sources: ['interface'] }).map((c) => c.version),
    ['v1.93.0', 'v1.100.0'],
  )
  t.throws(() => changesBetween('v1.100.0', 'v1.90.0'), /reversed range/)
  t.throws(() => changesBetween('v1.100.0', 'v1.90.0'), VersionError)
  t.throws(() => changesBetween('1.2', 'v1.90.0'), VersionError)
})

t.test('change rows carry the expected actions', async (t) => {
  const rows = allChanges()
  const sorted = [...rows].sort((a, b) => compareVersions(a.version, b.version))
  t.same(
    rows.map((r) => r.version),
    sorted.map((r) => r.version),
    'allChanges is oldest first',
  )
  const at = (v: string, source = 'interface') => rows.find((r) => r.version === v && r.source === source)
  t.match(at('v1.88.0')?.actions, [
    { kind: 'minimum-version', component: 'runtime', version: '3.8' },
    { kind: 'config-removed', key: 'worker_replication_host' },
    { kind: 'config-removed', key: 'worker_replication_http_port' },
    { kind: 'config-removed', key: 'worker_replication_http_tls' },
    { kind: 'behaviour-changed' },
  ])
  t.match(at('v1.72.0')?.actions, [{ kind: 'minimum-version', component: 'database', version: '11' }])
  t.match(at('v1.100.0')?.actions, [{ kind: 'minimum-version', component: 'build-toolchain', version: '1.65.0', previous: '1.61.0' }])
  t.match(at('v1.32.0')?.actions[0], { kind: 'endpoint-removed', method: 'GET', path: '/_synapse/admin/v1/users/<user_id>' })
  t.match(at('v1.78.0')?.actions[0], { kind: 'endpoint-deprecated', path: '/_synapse/admin/v1/media/<server_name>/delete' })
  t.match(at('v1.7.0')?.actions, [
    { kind: 'config-default-changed', to: false },
    { kind: 'config-default-changed', to: false },
  ])
  t.match(at('v1.122.0', 'reference')?.actions[0], { kind: 'endpoint-added', parameter: 'event_sender_user_id' })
  t.match(at('v1.150.0', 'reference')?.actions[1], { kind: 'config-added', key: 'SYNAPSE_VERSION_STRING', where: 'environment' })
  t.ok(at('v1.94.0', 'reference'))
  t.ok(at('v1.106.0', 'reference'))
  for (const r of rows) {
    t.ok(r.actions.length > 0 && r.actions.every((a) => a.detail.length > 0), `${r.version} has actions with details`)
    t.ok(r.section.length > 0, `${r.version} names its section`)
  }
})

// The stepping plan has its own file: steps.test.ts.

t.test('planUpgrade: floor, rollback to from, steps, reminders', async (t) => {
  const p = planUpgrade('v1.90.0', 'v1.100.0')
  t.match(p, {
    from: 'v1.90.0',
    to: 'v1.100.0',
    table: 'interface',
    rollbackFloor: 'v1.96.0',
    canRollBackToFrom: false,
    beyondTable: null,
    targetRange: { from: 'v1.98.0', to: 'v1.102.0', floor: 'v1.96.0', source: 'interface' },
    steps: ['v1.97.0', 'v1.100.0'],
  })
  t.same(
    p.changes.map((c) => [c.version, c.source]),
    [
      ['v1.93.0', 'interface'],
      ['v1.94.0', 'reference'],
      ['v1.100.0', 'interface'],
    ],
  )
  t.same(
    p.stepDetails.map((s) => [s.version, s.previous, s.rollbackFloor, s.canRollBackToPrevious]),
    [
      ['v1.97.0', 'v1.90.0', 'v1.90.0', true],
      ['v1.100.0', 'v1.97.0', 'v1.96.0', true],
    ],
  )
  t.equal(p.reminders.length, 3)
  t.match(p.reminders.join('\n'), /migrations/)
  t.match(p.reminders.join('\n'), /background updates.*\/_synapse\/admin\/v1\/background_updates\/status/)
  t.same(p.warnings, [])

  t.equal(planUpgrade('v1.96.0', 'v1.100.0').canRollBackToFrom, true, 'floor(to) == from is possible')
  t.equal(planUpgrade('v1.97.0', 'v1.100.0').canRollBackToFrom, true)
  t.equal(planUpgrade('v1.95.0', 'v1.100.0').canRollBackToFrom, false)
  t.match(planUpgrade('v1.90.0', 'v1.100.0', { hsPrefix: '/custom/' }).reminders[2], /GET \/custom\/admin\/v1\/background_updates\/status/)

  const same = planUpgrade('v1.90.0', 'v1.90.0')
  t.same(same.changes, [])
  t.same(same.steps, [])
  t.equal(same.canRollBackToFrom, true)

  t.throws(() => planUpgrade('v1.100.0', 'v1.90.0'), /reversed range/)
  t.throws(() => planUpgrade('v1.12.5', 'v1.40.0'), /unknown rollback range for from v1\.12\.5/)
  t.throws(() => planUpgrade('v1.40.0', 'v1.47.5'), /unknown rollback range for to v1\.47\.5/)
  t.throws(() => planUpgrade('v0.99.0', 'v1.40.0'), /older than the first rollback range/)
})

t.test('planUpgrade beyond the interface table: no floor, reference shown labelled', async (t) => {
  const p = planUpgrade('v1.95.0', 'v1.110.0')
  t.equal(p.rollbackFloor, null)
  t.equal(p.canRollBackToFrom, null)
  t.equal(p.targetRange, null)
  t.match(p.beyondTable, {
    table: 'interface',
    lastRow: { from: 'v1.98.0', to: 'v1.102.0', floor: 'v1.96.0' },
    reference: {
      rollbackFloor: 'v1.100.0',
      canRollBackToFrom: false,
      range: { from: 'v1.105.1', to: null },
      steps: ['v1.97.0', 'v1.105.0', 'v1.110.0'],
      label: /not the default/,
    },
  })
  t.same(p.steps, ['v1.97.0', 'v1.102.0', 'v1.110.0'])
  t.equal(p.stepDetails.at(-1)?.canRollBackToPrevious, null)
  t.match(p.warnings.join('\n'), /beyond the interface document's rollback table/)
  t.match(p.warnings.join('\n'), /Changes after v1\.102\.0 are listed only where the reference gives them/)
  t.same(
    p.changes.map((c) => c.version),
    ['v1.100.0', 'v1.106.0'],
  )

  const q = planUpgrade('v1.90.0', 'v1.120.0')
  t.match(q.warnings.join('\n'), /Incompatible schema ranges after v1\.102\.0 are not known from the interface table/)
  // v1.120.0 lies in the reference's open-ended v1.105.1 range, which the target itself stands for.
  t.same(q.beyondTable?.reference?.steps, ['v1.97.0', 'v1.105.0', 'v1.120.0'])

  const r = planUpgrade('v1.95.0', 'v1.110.0', { table: 'reference' })
  t.match(r, { table: 'reference', rollbackFloor: 'v1.100.0', canRollBackToFrom: false, beyondTable: null })
  t.match(r.warnings.join('\n'), /uses the reference table/)
  const x = planUpgrade('v1.160.0', 'v1.161.0', { table: 'reference' })
  t.equal(x.canRollBackToFrom, true)
  t.match(x.warnings.join('\n'), /newer than the newest release the reference table was computed from \(v1\.160\.0\)/)
  t.notMatch(
    planUpgrade('v1.157.1', 'v1.160.0', { table: 'reference' }).warnings.join('\n'),
    /newer than the newest release/,
    'v1.160.0 is observed',
  )
})

t.test('masHas / synapseHas', async (t) => {
  const mas: [string | null, Parameters<typeof masHas>[1], boolean | 'unknown'][] = [
    ['v0.14.9', 'policy-data', false],
    ['v0.15.0', 'policy-data', true],
    ['v1.2.0', 'site-config', false],
    ['v1.3.0', 'site-config', true],
    ['v0.19.0', 'users-reactivate', false],
    ['v0.20.0', 'users-reactivate', true],
    ['v0.16.0', 'user-registration-tokens', false],
    ['v0.17.0', 'user-registration-tokens', true],
    ['v1.3.0', 'item-cursor', false],
    ['v1.4.0', 'item-cursor', true],
    ['v1.17.0', 'users-add-profile', false],
    ['v1.18.0', 'users-add-profile', true],
    ['v1.3.9', 'count-param', false],
    ['v1.4.0', 'count-param', true],
    ['v1.4.0', 'site-config', true],
    ['1.4.0', 'version-endpoint', true],
    ['v1.3.0', 'version-endpoint', false],
    ['v1.4.1', 'personal-sessions', false],
    ['v1.5.0', 'personal-sessions', true],
    ['v1.19.9', 'filter-created-before', false],
    ['v1.20.0', 'filter-created-before', true],
    ['v1.20.0', 'filter-created-after', true],
    ['v1.20.0', 'filter-last-active-before', true],
    ['v1.20.0', 'filter-last-active-after', true],
    ['v1.19.0', 'client-filter-repeatable', false],
    ['v1.22.0', 'client-filter-repeatable', true],
    ['v1.19.0', 'log-requester', false],
    ['v1.20.0', 'log-requester', true],
    ['v1.20.0', 'log-client-address', true],
    ['v1.20.0', 'log-graphql-operation', true],
    ['v1.20.0', 'log-stats-db', true],
    ['v1.20.0', 'log-stats-queries', true],
    ['v1.20.0', 'log-stats-fetched', true],
    [null, 'site-config', 'unknown'],
    ['', 'site-config', 'unknown'],
    ['main', 'site-config', 'unknown'],
    ['v1.4.0-rc.1', 'site-config', 'unknown'],
  ]
  for (const [v, f, want] of mas) t.equal(masHas(v, f), want, `masHas(${JSON.stringify(v)}, ${f})`)
  t.equal(masHas(parseVersion('v1.6.0'), 'personal-sessions'), true)
  t.equal(masHas(undefined, 'site-config'), 'unknown')

  const syn: [string | null, Parameters<typeof synapseHas>[1], boolean | 'unknown'][] = [
    ['1.78.0', 'event-report-delete', false],
    ['1.79.0', 'event-report-delete', true],
    ['1.121.0', 'event-sender-filter', false],
    ['1.122.0', 'event-sender-filter', true],
    ['1.157.1 (b=develop, abcdef1)', 'event-sender-filter', true],
    ['1.85.0', 'well-known-msc2965-authentication', false],
    ['1.86.0', 'well-known-msc2965-authentication', true],
    ['1.67.0', 'event-json-prev-state', true],
    ['1.68.0', 'event-json-prev-state', false],
    ['1.133.0', 'event-json-origin', true],
    ['1.134.0', 'event-json-origin', false],
    ['1.157.1', 'default-room-version-10', true],
    ['1.157.1', 'default-room-version-11', false],
    ['1.160.0', 'default-room-version-10', false],
    ['1.160.0', 'default-room-version-11', true],
    ['1.93.0', 'server-version-python-version', true],
    ['1.94.0', 'server-version-python-version', false],
    ['1.105.0', 'negative-integer-generic-message', false],
    ['1.106.0', 'negative-integer-generic-message', true],
    ['1.149.0', 'request-log-labels', false],
    ['1.150.0', 'request-log-labels', true],
    ['1.150.0', 'version-string-override', true],
    ['1.23.1', 'legacy-admin-prefixes', true],
    ['1.24.0', 'legacy-admin-prefixes', false],
    ['1.79.0', 'report-event-not-visible-404', false],
    ['1.80.0', 'report-event-not-visible-404', true],
    ['1.122.0rc1', 'event-sender-filter', 'unknown'],
    [null, 'event-report-delete', 'unknown'],
  ]
  for (const [v, f, want] of syn) t.equal(synapseHas(v, f), want, `synapseHas(${JSON.stringify(v)}, ${f})`)
  t.throws(() => masHas('v1.0.0', 'nope' as Parameters<typeof masHas>[1]), /unknown MAS feature/)
  t.throws(() => synapseHas('v1.0.0', 'toString' as Parameters<typeof synapseHas>[1]), /unknown Synapse feature/)
  t.ok(MAS_FEATURE_NAMES.includes('personal-sessions'))
  t.ok(SYNAPSE_FEATURE_NAMES.includes('event-report-delete'))
})

t.test('legacy admin prefixes for the pre-upgrade checks', async (t) => {
  t.same([...LEGACY_ADMIN_PREFIXES].sort(), ['/_matrix/client/api/v1/admin', '/_matrix/client/r0/admin', '/_matrix/client/unstable/admin'])
  t.same(legacyAdminProbePaths().sort(), [
    '/_matrix/client/api/v1/admin/event_reports',
    '/_matrix/client/r0/admin/event_reports',
    '/_matrix/client/unstable/admin/event_reports',
  ])
  t.same(legacyAdminProbePaths('/server_version').length, 3)
  t.throws(() => legacyAdminProbePaths('whois/@a:b'), /still served/)
  t.equal(backgroundUpdatesStatusPath(), '/_synapse/admin/v1/background_updates/status')
  t.throws(() => backgroundUpdatesStatusPath('nope'), /'nope' must look like \/_synapse/, 'the one prefix rule (lib/target.ts)')
})
