// The homeserver's reports in the sequences: delete and read the reports the side already holds (by
// position), and reports made inside the sequence: file an event report (in a room and on a message the
// reporter makes first) or a user report (the non-admin user reports the admin user) through the client
// API, find it in the admin listing, read it, delete it, read it again. Shown: status, errcode, and
// whether a filed report is listed.
import fc from 'fast-check'
import { listed, send, sendClient, shown, type SideState } from './common.ts'

export type ReportKind = 'event_reports' | 'user_reports'

export type ReportStep =
  | { op: 'delete-report'; kind: ReportKind; report: number }
  | { op: 'get-report'; kind: ReportKind; report: number }
  | { op: 'file-report'; kind: ReportKind; slot: number; variant?: 'unknown-target' | 'score-string' }
  | { op: 'filed'; act: 'get' | 'delete'; kind: ReportKind; slot: number }

async function reportId(s: SideState, kind: ReportKind, n: number): Promise<string | undefined> {
  return listed(
    s,
    kind,
    async () => {
      const r = await send(s, 'hs', 'GET', `/${kind}?limit=500&dir=f`)
      const items = (r.json as Record<string, unknown> | undefined)?.[kind]
      return Array.isArray(items) ? items.map((x) => String((x as { id?: unknown }).id)) : []
    },
    n,
  )
}

/** The user behind one of the side's homeserver tokens (whoami), once per exploration. */
async function whoami(s: SideState, as: 'admin' | 'user'): Promise<string | undefined> {
  const w = (s.shared.whoami ??= new Map())
  if (!w.has(as)) {
    const r = await sendClient(s, as, 'GET', '/account/whoami')
    const id = (r.json as { user_id?: unknown } | undefined)?.user_id
    w.set(as, r.status === 200 && typeof id === 'string' ? id : undefined)
  }
  return w.get(as)
}

export async function reportReady(s: SideState, step: ReportStep): Promise<string | undefined> {
  if (step.op === 'delete-report' || step.op === 'get-report')
    return (await reportId(s, step.kind, step.report)) === undefined ? `no ${step.kind} left at this position` : undefined
  if (step.op === 'file-report' && step.kind === 'user_reports') {
    if (!s.side.hs?.userToken) return 'no non-admin homeserver token: no user report is filed through the client API'
    if ((await whoami(s, 'admin')) === undefined || (await whoami(s, 'user')) === undefined)
      return 'whoami did not name the users behind the homeserver tokens: no user report is filed'
  }
  return undefined
}

/**
 * A room and a message of the reporter's own (the reporter sees the event it reports), made once per
 * side and exploration: a real server limits room creation (Synapse: a burst of 10), and every report of
 * the exploration can be filed on the same message. A string: why there is none.
 */
async function ownEvent(s: SideState, as: 'admin' | 'user'): Promise<{ roomId: string; eventId: string } | string> {
  if (s.shared.ownEvent === undefined) {
    const room = await sendClient(s, as, 'POST', '/createRoom', { name: `${s.tag} reports` })
    const roomId = (room.json as { room_id?: unknown } | undefined)?.room_id
    if (room.status !== 200 || typeof roomId !== 'string') return (s.shared.ownEvent = `createRoom answered ${room.status}`)
    const sent = await sendClient(s, as, 'PUT', `/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${s.tag}-m`, {
      msgtype: 'm.text',
      body: 'admin-conformance explore: a message to report',
    })
    const eventId = (sent.json as { event_id?: unknown } | undefined)?.event_id
    if (sent.status !== 200 || typeof eventId !== 'string') return (s.shared.ownEvent = `sending a message answered ${sent.status}`)
    s.shared.ownEvent = { roomId, eventId }
  }
  return s.shared.ownEvent
}

export async function runReport(s: SideState, step: ReportStep): Promise<{ seen: string; line: string }> {
  switch (step.op) {
    case 'delete-report':
    case 'get-report': {
      const id = (await reportId(s, step.kind, step.report)) ?? '999999999'
      return shown(await send(s, 'hs', step.op === 'get-report' ? 'GET' : 'DELETE', `/${step.kind}/${id}`))
    }
    case 'file-report': {
      const reason = `${s.tag} r${step.slot}`
      if (step.kind === 'event_reports') {
        const as = s.side.hs?.userToken ? 'user' : 'admin'
        const ev = await ownEvent(s, as)
        if (typeof ev === 'string') return { seen: `no message to report: ${ev}`, line: 'POST …/createRoom, PUT …/send' }
        // a score that is not an integer ("-50") is refused (400 M_BAD_JSON) and nothing is listed
        const r = await sendClient(s, as, 'POST', `/rooms/${encodeURIComponent(ev.roomId)}/report/${encodeURIComponent(ev.eventId)}`, {
          reason,
          score: step.variant === 'score-string' ? '-50' : -50,
        })
        const list = await send(s, 'hs', 'GET', `/event_reports?room_id=${encodeURIComponent(ev.roomId)}&dir=b&limit=100`)
        return fileShown(s, step, r, list.json, reason)
      }
      const admin = (await whoami(s, 'admin'))!
      // a user of the server that does not exist: 200 {} and nothing stored
      const target = step.variant === 'unknown-target' ? `@${s.tag}-nobody${admin.slice(admin.indexOf(':'))}` : admin
      const r = await sendClient(s, 'user', 'POST', `/users/${encodeURIComponent(target)}/report`, { reason })
      const list = await send(s, 'hs', 'GET', `/user_reports?target_user_id=${encodeURIComponent(target)}&dir=b&limit=100`)
      return fileShown(s, step, r, list.json, reason)
    }
    case 'filed': {
      const id = s.made.get(`${step.kind}:${step.slot}`) ?? '999999999'
      return shown(await send(s, 'hs', step.act === 'get' ? 'GET' : 'DELETE', `/${step.kind}/${id}`))
    }
  }
}

/** The filing's status, and whether the admin listing holds the report (found by its reason). */
function fileShown(
  s: SideState,
  step: { kind: ReportKind; slot: number },
  r: { status: number; json: unknown; line: string },
  list: unknown,
  reason: string,
) {
  const items = (list as Record<string, unknown> | undefined)?.[step.kind]
  const mine = Array.isArray(items) ? (items as { id?: unknown; reason?: unknown }[]).find((x) => x.reason === reason) : undefined
  if (mine && !s.made.has(`${step.kind}:${step.slot}`)) s.made.set(`${step.kind}:${step.slot}`, String(mine.id))
  return shown(r, `listed:${mine !== undefined}`)
}

export function reportLine(s: ReportStep): string {
  switch (s.op) {
    case 'delete-report':
      return `delete ${s.kind} #${s.report}`
    case 'get-report':
      return `get ${s.kind} #${s.report}`
    case 'file-report':
      return `file ${s.kind === 'event_reports' ? 'an event' : 'a user'} report r${s.slot} through the client API${s.variant === 'unknown-target' ? ' against a user that does not exist' : s.variant === 'score-string' ? ' with the score as a string' : ''}`
    case 'filed':
      return `${s.act} the filed ${s.kind} r${s.slot}`
  }
}

export function reportArbitraries(): fc.Arbitrary<ReportStep>[] {
  const kind = fc.constantFrom('event_reports', 'user_reports') as fc.Arbitrary<ReportKind>
  const slot = fc.constantFrom(0, 0, 1)
  return [
    fc.record({ kind, report: fc.integer({ min: 0, max: 2 }) }).map((r) => ({ op: 'delete-report', ...r }) as ReportStep),
    fc.record({ kind, report: fc.integer({ min: 0, max: 2 }) }).map((r) => ({ op: 'get-report', ...r }) as ReportStep),
    fc.record({ kind, slot }).map((r) => ({ op: 'file-report', ...r }) as ReportStep),
    fc
      .record({ kind, slot })
      .map((r) => ({ op: 'file-report', ...r, variant: r.kind === 'event_reports' ? 'score-string' : 'unknown-target' }) as ReportStep),
    fc.record({ kind, slot, act: fc.constantFrom('get', 'delete', 'delete') }).map((r) => ({ op: 'filed', ...r }) as ReportStep),
  ]
}

export const reportNeeds = (s: ReportStep): string[] => (s.op === 'filed' ? [`file:${s.kind}:${s.slot}`] : [])
export const reportMakes = (s: ReportStep): string[] => (s.op === 'file-report' && !s.variant ? [`file:${s.kind}:${s.slot}`] : [])
