// The closing report of a deployment and the database check after PostgreSQL's start.
import type { DeployPlan } from './config.ts'
import { DeployError } from './errors.ts'
import { seconds, type Progress } from './progress.ts'
import { ROLE_TITLE, type Role, type RunningService } from './service.ts'
import type { DeployResult } from './options.ts'

/** The closing report: phases with timings, fixtures, suites, logs and the outcome. No secrets. */
export function summary(r: DeployResult, progress: Progress): void {
  progress.say('summary:')
  for (const p of r.phases)
    progress.detail(`${p.ok ? 'ok    ' : 'FAILED'} ${p.name.padEnd(20)} ${seconds(p.ms).padStart(8)}${p.error ? `  ${p.error}` : ''}`)
  if (r.fixtures) {
    const f = r.fixtures
    progress.detail(
      `fixtures: ${f.users} users, ${f.personalSessions} personal sessions, ${f.oauthSessions} OAuth 2.0 sessions, ${f.rooms} rooms, ${f.events} events, ${f.reports} reports`,
    )
  }
  for (const s of r.suites) {
    const counts = s.counts
      ? ` (${s.counts.passed} passed, ${s.counts.failed} failed${s.counts.skipped !== undefined ? `, ${s.counts.skipped} skipped` : ''})`
      : ''
    const both =
      r.suites.some((x) => x.area === s.area && x.allowWrites === false) &&
      r.suites.some((x) => x.area === s.area && x.allowWrites === true)
    const pass = s.allowWrites === false ? ' (read-only)' : both ? ' (with writes)' : ''
    progress.detail(
      s.skipped
        ? `suites ${s.area}: skipped: ${s.skipped}`
        : `suites ${s.area}${pass}: exit ${s.exitCode}${counts}${s.reportFile ? ` report ${s.reportFile}` : ''}`,
    )
    // Removed with the containers at teardown, but the target kept them while it ran: say so.
    for (const l of s.leftovers ?? []) progress.detail(`  data left behind by the suites: ${l.what}${l.reason ? ` (${l.reason})` : ''}`)
  }
  for (const [role, file] of Object.entries(r.logFiles)) progress.detail(`${ROLE_TITLE[role as Role]} log: ${file}`)
  const outcome = r.error ? `FAILED (${r.error.kind}): ${r.error.message}` : r.ok ? 'OK' : 'suites FAILED'
  progress.say(`result: ${outcome}; exit code ${r.exitCode}${r.kept ? '; deployment kept running' : ''}`)
}

/**
 * The handshake probe passes before authentication; this logs in over TCP with the services' credentials
 * and checks that both databases exist, the homeserver's with C collation. Uses the image's psql.
 */
export async function checkDatabases(pg: RunningService, plan: DeployPlan, detail: (l: string) => void): Promise<void> {
  for (const db of [plan.db.masDatabase, plan.db.homeserverDatabase]) {
    const r = await pg.exec(
      [
        'psql',
        '-h',
        plan.host,
        '-p',
        String(plan.ports.postgres),
        '-U',
        plan.db.user,
        '-d',
        db,
        '-tAc',
        'SELECT datcollate FROM pg_database WHERE datname = current_database()',
      ],
      { PGPASSWORD: plan.db.password },
    )
    if (r === undefined || r.exitCode === 126 || r.exitCode === 127) {
      detail('no psql in the PostgreSQL image: databases not checked')
      return
    }
    if (r.exitCode !== 0)
      throw new DeployError('health', `PostgreSQL: database ${db} is not usable: ${r.output.trim().split('\n').at(-1)}`, pg.tailLines())
    if (db === plan.db.homeserverDatabase && r.output.trim() !== 'C') {
      throw new DeployError('health', `PostgreSQL: database ${db} has collation '${r.output.trim()}', the homeserver needs C`)
    }
  }
  detail(`databases ${plan.db.masDatabase} and ${plan.db.homeserverDatabase} accept the services' login`)
}
