// The user reports of the homeserver store, kept in (received_ts, id) order, the order of the real
// listing (`ORDER BY received_ts`; ties broken by id here, unspecified there). Filters are the real
// server's SQL LIKE '%v%' on the reporter and the target, read as PostgreSQL does (case-sensitive,
// `%` and `_` wildcards; see likeContains): a filtered listing tests every report, which is bounded
// by the number of user reports (far fewer than event reports on any real server).
import type { UserReport, UserReportPage, UserReportQuery } from './records.ts'
import { likeContains } from './reports.ts'

const byOrder = (a: UserReport, b: UserReport): number => a.receivedTs - b.receivedTs || a.id - b.id

export class UserReportIndex {
  private readonly all: UserReport[] = []
  private readonly byId = new Map<number, UserReport>()

  add(r: UserReport): void {
    this.byId.set(r.id, r)
    const last = this.all[this.all.length - 1]
    // New reports are stamped "now": nearly always the end.
    if (last === undefined || byOrder(last, r) < 0) this.all.push(r)
    else this.all.splice(this.lowerBound(r), 0, r)
  }

  get(id: number): UserReport | undefined {
    return this.byId.get(id)
  }

  delete(id: number): boolean {
    const r = this.byId.get(id)
    if (!r) return false
    this.byId.delete(id)
    const i = this.lowerBound(r)
    if (this.all[i] === r) this.all.splice(i, 1)
    return true
  }

  get size(): number {
    return this.all.length
  }

  list(q: UserReportQuery): UserReportPage {
    const limit = Math.max(q.limit, 0)
    const n = this.all.length
    if (!q.userId && !q.targetUserId) {
      // A page is an index range: from the start (dir=f) or from the end (dir=b).
      const reports =
        q.dir === 'f'
          ? this.all.slice(q.from, q.from + limit)
          : this.all.slice(Math.max(0, n - q.from - limit), Math.max(0, n - q.from)).reverse()
      return { reports, total: n, scanned: 0 }
    }
    const ordered = q.dir === 'f' ? this.all : [...this.all].reverse()
    const byUser = q.userId ? likeContains(q.userId) : undefined
    const byTarget = q.targetUserId ? likeContains(q.targetUserId) : undefined
    const matching = ordered.filter((r) => (!byUser || byUser(r.userId)) && (!byTarget || byTarget(r.targetUserId)))
    return { reports: matching.slice(q.from, q.from + limit), total: matching.length, scanned: ordered.length }
  }

  private lowerBound(r: UserReport): number {
    let lo = 0
    let hi = this.all.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (byOrder(this.all[mid]!, r) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
