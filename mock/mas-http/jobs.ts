// Device-sync jobs: finishing a session (or revoking a device-bound personal session) queues a
// SyncDevicesJob for the user in the real service. The mock records it in world.jobs (visible at
// GET /_mock/jobs) and logs the line the handler logs, in the request's context.
import type { Ctx } from '../core/context.ts'

/** `site`: the `target:line` of the handler's log call, when it logs one. */
export function scheduleDeviceSync(ctx: Ctx, userId: string, reason: string, site?: string): void {
  if (ctx.faults.has('finish-no-sync-job')) return
  const jobs = ctx.world.jobs
  const last = jobs[jobs.length - 1]
  jobs.push({ id: (last?.id ?? 0) + 1, kind: 'sync-devices', userId, reason, scheduledAt: ctx.now().toISOString() })
  if (site) ctx.events.push({ level: 'INFO', target: site, message: `Scheduling device sync job for user user.id=${userId}` })
  ctx.log.queries += 1
}
