// The header of a run: what is checked, where, with which versions, and what the preflight noticed.
import { formatVersion, parseServerVersionString } from '../../../lib/versions.ts'
import { visible } from '../../../lib/escape.ts'
import type { Target } from '../../../lib/target.ts'
import pkg from '../../../package.json' with { type: 'json' }
import type { MockHandle } from '../target/mock-handle.ts'
import type { RunState } from '../run-types.ts'
import type { Preflight } from '../../common/preflight.ts'

/** The version as reported, and what the version-dependent checks make of it. */
function describeVersion(raw: string | undefined): string {
  if (raw === undefined) return '(unknown: version-dependent checks run and say so)'
  const p = parseServerVersionString(raw)
  // the target's string, shown escaped (lib/escape.ts)
  const shown = visible(JSON.stringify(raw))
  return p.ok
    ? `${shown} → ${formatVersion(p.version)}`
    : `${shown} (not a release: ${visible(p.reason)}; version-dependent checks run and say so)`
}

/** What the bundled mock claims to be, and whether the user chose it (--mock-hs-version, --mock-mas-version). */
function mockClaims(st: RunState, pf: Preflight): string {
  const { mockHsVersion: hs, mockMasVersion: mas } = st.opts
  const part = (name: string, reported: string | undefined, flag: string, given: string | undefined) =>
    `${name} ${reported ?? given ?? '?'} (${given !== undefined ? flag : 'default'})`
  return `${part('homeserver', pf.hsVersion, '--mock-hs-version', hs)}, ${part('auth service', pf.masVersion, '--mock-mas-version', mas)}`
}

export function header(st: RunState, target: Target, areas: string[], mocks: MockHandle[], pf: Preflight): string {
  const { opts } = st
  const rows: [string, string][] = []
  if (target.mas) rows.push(['auth service', `${target.mas.url}  version ${describeVersion(pf.masVersion)}`])
  if (target.hs)
    rows.push([
      'homeserver',
      `${target.hs.url}  server_version ${describeVersion(pf.hsVersion)}  (admin prefix ${target.hs.prefix}, client prefix ${target.hs.clientPrefix})`,
    ])
  if (target.isMock) rows.push(['mock claims', mockClaims(st, pf)])
  rows.push([
    'writes',
    `${target.allowWrites ? 'on' : 'off (read-only; --allow-writes to enable)'}${target.isMock ? ' (bundled mock)' : ''}`,
  ])
  rows.push([
    'areas',
    `${areas.join(', ')}${opts.grep ? `  (checks matching ${opts.grep})` : ''}${opts.strict ? '  (strict: deviations fail)' : ''}`,
  ])
  if (opts.faultMatrix) rows.push(['fault matrix', `a clean mock and ${mocks.length - 1} mocks with one fault each`])
  else if (opts.mockFaults.length) rows.push(['mock faults', opts.mockFaults.join(', ')])
  // The bundled mock's own log lives in the run's scratch folder and goes with it: only a given log is named.
  if (target.logFile && !target.isMock) rows.push(['request log', target.logStdin ? '(standard input)' : target.logFile])
  for (const w of pf.warnings) rows.push(['warning', visible(w)])
  const width = Math.max(...rows.map(([k]) => k.length))
  return [st.st.bold(`admin-conformance ${pkg.version}  run ${st.runId}`), ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)].join('\n')
}
