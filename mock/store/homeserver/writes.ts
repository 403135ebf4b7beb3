// The homeserver store's writes as data (see mock/store/mas/writes.ts for the pattern). Event ids come from a
// counter run through a mixer, so an entry that creates events records the counter it started from:
// the replay then generates the very same ids, and `eventId` (or `lastEventId` for a new room) lets
// it check that it did.
import type { JoinRule } from './records.ts'

export interface RoomOpts {
  name?: string | null
  alias?: string | null
  joinRule: JoinRule
  ts: number
}

export type HsWrite =
  | { t: 'hs.user'; localpart: string; admin: boolean; displayName: string | null; createdTs: number }
  | { t: 'hs.displayname'; userId: string; displayName: string | null }
  | { t: 'hs.token'; token: string; userId: string; deviceId: string }
  | { t: 'hs.room'; roomId: string; creator: string; opts: RoomOpts; counter: number; lastEventId: string }
  | {
      t: 'hs.event'
      roomId: string
      sender: string
      type: string
      content: Record<string, unknown>
      ts: number
      stateKey?: string
      counter: number
      eventId: string
    }
  | { t: 'hs.join'; roomId: string; userId: string; ts: number; counter: number; eventId: string }
  | { t: 'hs.txn'; key: string; eventId: string }
  | { t: 'hs.report'; id: number; roomId: string; eventId: string; userId: string; content: Record<string, unknown>; receivedTs: number }
  | { t: 'hs.report.delete'; id: number }
  | { t: 'hs.stats.drop'; roomId: string }
  | { t: 'hs.user-report'; id: number; targetUserId: string; userId: string; reason: string; receivedTs: number }
  | { t: 'hs.user-report.delete'; id: number }
  | { t: 'hs.account-data'; userId: string; type: string; content: Record<string, unknown> }
