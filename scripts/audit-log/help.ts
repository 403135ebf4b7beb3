// The --help text of `audit-log`.

import { AREA_C_ACTIVITIES } from './activities.ts'
import { ADMIN_ACTIONS } from './admin-actions.ts'
import { DEFAULT_CLIENT_PREFIX } from './classify.ts'

export const HELP = `usage: admin-conformance audit-log [options] FILE|-

Classify the requests of an authentication-service log (http.server.response lines; '-' reads
stdin). ANSI colours are ignored; both the v1.20 and the earlier stats format are understood.
Other log events (the WARN/ERROR line before an error response, jobs, startup) are counted apart.

options:
  --json                 print one JSON object instead of the human summary
  --requester R          also show the timeline of one requester: user:<id>, user:<id>(<name>),
                         oauth2-client:<id>, homeserver, a bare id, '(none)' for v1.20 lines
                         without a requester, '(unknown)' for pre-v1.20 lines (no fields)
  --client-prefix P      prefix of the client API for client login/logout (default ${DEFAULT_CLIENT_PREFIX})
  --max-malformed N      list at most N malformed lines (default 100; all are counted)
  --max-admin-actions N  list at most N admin actions (default 100; all are counted)
  --top N                requesters shown in the human summary (default 20; --json has all)
  --jobs N               split FILE across N threads (default: one per core, at most
                         4, for files of 128 MiB or more, 32 MiB with --engine js; one thread
                         below). Ignored for stdin and with --requester
  --engine E             wasm (default where it loads): canonical request lines are counted by a
                         WebAssembly scanner, every other line by the JavaScript one; js: all
                         lines in JavaScript (same results, 2-3x slower). --requester uses js
  --no-progress          no progress line on stderr (it is shown only when stderr is a terminal)
  -h, --help             this help

activities: ${wrap(AREA_C_ACTIVITIES.join(', ') + ', other.', 96)}
Each is counted with its outcome (ok/failed): e.g. POST /login answered 303 with a requester is
browser-login ok, answered 200 (form re-rendered) is browser-login-failed, a 401 on /oauth2/token
is token-issuance failed. A GraphQL 200 means the operation was attempted (failures are in the
response body, which the log does not show). Requests outside the table are 'other' (ok below 400).

admin actions (writes of the admin API, ok when answered 2xx), each an activity of its own and
listed with its time, requester and target id:
${ADMIN_ACTIONS.map((a) => `  ${a.activity.padEnd(34)} ${a.method} ${a.route}`).join('\n')}

--json prints: lines, requests, events, blank, malformedCount, malformed [{line, error, part,
column}] (1-based line and column numbers, column in the original line), malformedTruncated,
formats, activities, outcomes {activity: {ok, failed}}, operations {GraphQL operation name:
count}, requesters {key: {requester, username?, requests, activities}}, timeRange {first, last}
(null without timestamps), adminActions [{line, timestamp, activity, method, path, target?,
requester, status, outcome}], adminActionsTruncated, and timeline with --requester
(schemas/requestlog/audit-result.json).

exit status:
  0  every line was read and none was malformed
  1  some lines were malformed (listed with their line numbers), or the input holds no request
  2  usage error, the input could not be read, or --requester names no requester of the log
`

function wrap(text: string, width: number): string {
  const out: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  out.push(line)
  return out.join('\n')
}
