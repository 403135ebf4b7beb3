// The homeserver's records as the mock stores them: users and their sessions, rooms, events, event
// reports, user reports, and the shapes of a report listing's query and answer.
import type { EventReportListItem } from '../../../lib/types.gen.ts'

export interface HsUser {
  userId: string
  localpart: string
  admin: boolean
  displayName: string | null
  createdTs: number
}

export interface HsSession {
  userId: string
  deviceId: string
}

export type JoinRule = 'public' | 'invite'

export interface HsRoom {
  roomId: string
  roomVersion: string
  creator: string
  name: string | null
  canonicalAlias: string | null
  joinRule: JoinRule
  /** current membership per user: the member event id of their join */
  members: Map<string, string>
  createEventId: string
  powerLevelsEventId: string
  joinRulesEventId: string
  /** forward extremity and depth of the room's (linear) event graph */
  lastEventId: string | null
  depth: number
  /** whether the server has a room_stats_state row for it (reports of rooms without one are not listed) */
  stats: boolean
}

export interface HsEvent {
  eventId: string
  roomId: string
  sender: string
  type: string
  stateKey?: string
  content: Record<string, unknown>
  originServerTs: number
  depth: number
  prevEvents: string[]
  authEvents: string[]
}

export interface EventReport {
  id: number
  receivedTs: number
  roomId: string
  eventId: string
  /** the reporter */
  userId: string
  /** the `reason` column: the body's reason, null when left out */
  reason: string | null
  /** the whole JSON body the reporter sent */
  content: Record<string, unknown>
  /** sender of the reported event when the report was filed (events are immutable); null if unknown */
  sender: string | null
}

/** A list item: exactly the ten keys of the real listing (the type generated from its schema). */
export type EventReportItem = EventReportListItem

export type SubstringMode = 'substring' | 'exact'

export interface ReportQuery {
  from: number
  limit: number
  /** b: newest first; f: oldest first */
  dir: 'b' | 'f'
  /** reporter filter; substring match unless userMode is 'exact' */
  userId?: string
  userMode?: SubstringMode
  /** room filter; substring match unless roomMode is 'exact' */
  roomId?: string
  roomMode?: SubstringMode
  /** sender of the reported event, exact match */
  eventSenderUserId?: string
}

export interface ReportPage {
  reports: EventReport[]
  total: number
  /** report records the query touched (not counting the page itself); 0 when total came from array lengths */
  scanned: number
}

/** A user report: a row of the real `user_reports` table, all five columns NOT NULL. */
export interface UserReport {
  id: number
  receivedTs: number
  /** the reported (local, existing) user */
  targetUserId: string
  /** the reporter */
  userId: string
  reason: string
}

export interface UserReportQuery {
  from: number
  limit: number
  /** b: newest first; f: oldest first (by received_ts, then id) */
  dir: 'b' | 'f'
  /** reporter filter, SQL LIKE '%v%' */
  userId?: string
  /** target filter, SQL LIKE '%v%' */
  targetUserId?: string
}

export interface UserReportPage {
  reports: UserReport[]
  total: number
  /** reports the filters were tested on */
  scanned: number
}
