// How the auth service shapes its errors: the `{errors:[{title}…]}` envelope, with or without the WARN
// event line the service logs before a route error, and the fault switches that bend them.
import type { Ctx, Reply } from '../core/context.ts'

/** Auth service admin API error: `{errors:[{title}...]}` */
export function masError(status: number, ...titles: string[]): Reply {
  return { status, body: { errors: titles.map((title) => ({ title })) } }
}

/** An error answer without a log event (pagination, path and body rejections). */
export function rejection(ctx: Ctx, status: number, ...titles: string[]): Reply {
  if (ctx.faults.has('error-envelope-flat')) return { status, body: { error: titles[0] } }
  return masError(status, ...titles)
}

/**
 * A route error: the service logs it first (WARN for 4xx) from the handler's `record_error!` call
 * site, printed as `target:line`, with the source chain as `message.sources`.
 */
export function routeError(ctx: Ctx, site: string, status: number, ...titles: string[]): Reply {
  const [head, ...sources] = titles
  ctx.events.push({
    level: status >= 500 ? 'ERROR' : 'WARN',
    target: site,
    message: sources.length ? `${head} message.sources=[${sources.join(', ')}]` : head!,
  })
  return rejection(ctx, status, ...titles)
}

/** A not-found title that names the id, unless the `error-title-missing-id` fault drops it. */
export function titleWithId(ctx: Ctx, withId: string, withoutId: string): string {
  return ctx.faults.has('error-title-missing-id') ? withoutId : withId
}
