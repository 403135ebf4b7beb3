// Faults of the shared server machinery (request log, routing).
import { fault } from './def.ts'

export const coreFaults = [
  fault('log-level-ignores-status', 'log', 'request-log lines are always INFO, also for 4xx/5xx responses'),
  fault('log-query-in-request-line', 'log', 'the logged request line keeps the query string'),
  fault('log-drops-requester', 'log', 'authenticated requests are logged without requester='),
]
