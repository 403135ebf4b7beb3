// The request log (area C): the `http.server.response` lines of a target's log (`--log-file`, '-' for
// stdin, or the bundled mock's log). The suite first sends a known set of requests of its own (each with
// the run's User-Agent plus a unique suffix) and checks that each is logged exactly once as sent; then
// it reads the whole log in one streaming pass and checks every line against the grammar
// (lib/requestlog.ts) and the interface's rules. Offences are reported with their line numbers.
// @waits for its lines to reach the log, then 300 ms more for duplicates (the runner overlaps that with other files)
import type { Readable } from 'node:stream'
import { isIP } from 'node:net'
import { check, memo, masVersion, note, skip, target, redactText, type Test } from '../lib/suite.ts'
import { masHas } from '../../lib/versions.ts'
import { analyse, describeParseError, requesterText, tagFor, IN_FLIGHT_GRACE_MS, type Analysis, type Bucket } from './logscan.ts'
import { sendAndCollect, FLUSH_DEADLINE_MS, IDLE_GIVE_UP_MS, type Sent, type Traffic } from './traffic.ts'

// ---------------------------------------------------------------------------------------------------
// The log and the suite's own traffic, shared by the checks of a target

function logFile(): string {
  const f = target.logFile
  if (!f) skip('no request log to check: give --log-file FILE (or - for stdin)')
  return f
}

/** The suite's own requests, sent once per target; a reason string when they cannot be correlated. */
function traffic(): Promise<Traffic | string> {
  return memo('requestlog:traffic', async () => {
    const f = target.logFile
    if (!f) return 'no request log'
    if (f === '-' || target.logStdin)
      return 'the log comes from stdin, which the suite cannot follow while it sends requests (give the log as a file)'
    if (!target.mas) return 'no auth service target to send requests to (give --mas-url with --log-file)'
    return sendAndCollect(f)
  })
}

function stdinSource(): Readable {
  if (process.stdin.isTTY) skip('the log is to come from stdin, but stdin is a terminal: pipe the log in')
  return process.stdin
}

/** One pass over the whole log, after the suite's own requests were logged. */
function analysis(): Promise<Analysis | { error: string }> {
  return memo('requestlog:analysis', async () => {
    const f = logFile()
    // The suite's own requests first, so that the pass sees them too (a failure to send is reported by the traffic checks).
    await traffic().catch(() => undefined)
    try {
      return await analyse(f === '-' ? stdinSource() : f)
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      const why =
        err.code === 'ENOENT'
          ? 'no such file'
          : err.code === 'EACCES'
            ? 'permission denied'
            : err.code === 'EISDIR'
              ? 'it is a directory'
              : err.message
      return { error: `cannot read the request log ${f}: ${why}` }
    }
  })
}

async function readLog(t: Test): Promise<Analysis> {
  const a = await analysis()
  if ('error' in a) {
    t.fail(a.error)
    skip('the log could not be read')
  }
  if (a.partialTail) note(t, 'the last line of the log was still being written and was left out')
  return a
}

/** Passes when the bucket is empty; otherwise one failure per offending line (`line N: why`), the first ones. */
function expectNone(t: Test, b: Bucket, what: string): void {
  if (b.count === 0) {
    t.pass(what)
    return
  }
  for (const o of b.items) t.fail(redactText(`line ${o.line}: ${o.detail}`), { rule: what, text: redactText(o.text) })
  if (b.count > b.items.length) t.fail(`${b.count - b.items.length} more offending line(s) not listed`, { rule: what })
}

async function ownTraffic(t: Test): Promise<Traffic> {
  logFile()
  const tr = await traffic()
  if (typeof tr === 'string') skip(tr)
  if (tr.notSent.length) note(t, `not sent: ${tr.notSent.join('; ')}`)
  return tr
}

function linesOf(tr: Traffic, s: Sent) {
  return tr.lines.filter((m) => m.parsed.kind === 'response' && m.parsed.value.rec.userAgent === s.userAgent)
}

function shownRequest(s: Sent): string {
  return `${s.method} ${s.path} (${s.label})`
}

// ---------------------------------------------------------------------------------------------------
// The suite's own requests

check('log: each request this suite sent appears exactly once, with its method, path and status', [], async (t) => {
  const tr = await ownTraffic(t)
  const answered = tr.sent.filter((s) => s.status !== undefined)
  for (const s of tr.sent.filter((s) => s.error !== undefined)) t.fail(`${shownRequest(s)} got no answer`, { error: s.error })
  if (answered.length === 0) return
  const mine = tr.lines.length
  if (mine === 0) {
    t.fail(
      `none of the ${answered.length} requests this suite sent reached the log (waited ${(tr.waitedMs / 1000).toFixed(1)} s, at most ${FLUSH_DEADLINE_MS / 1000} s, or ${IDLE_GIVE_UP_MS / 1000} s while the log did not grow)`,
      {
        logFile: target.logFile,
        hint: `is ${target.logFile} the log of the service at ${target.mas?.url}, and does it log at INFO level?`,
      },
    )
    return
  }
  // Lines of the suite that do not parse even as a response line are the parse check's business; say so here too.
  for (const m of tr.lines.filter((m) => m.parsed.kind === 'malformed')) {
    t.fail(`line ${m.no} carries this suite's User-Agent but does not parse`, {
      error: m.parsed.kind === 'malformed' ? describeParseError(m.parsed.error) : '',
      line: redactText(m.text),
    })
  }
  for (const s of answered) {
    const found = linesOf(tr, s)
    const what = shownRequest(s)
    if (found.length === 0) {
      t.fail(`${what}: logged`, { userAgent: s.userAgent, waited: `${tr.waitedMs} ms` })
      continue
    }
    t.equal(found.length, 1, `${what}: logged exactly once`, { lines: found.map((m) => m.no) })
    const m = found[0]!
    if (m.parsed.kind !== 'response') continue
    const rec = m.parsed.value.rec
    const at = { line: m.no, text: redactText(m.text) }
    t.equal(rec.method, s.method, `${what}: the request line has the method`, at)
    // The query string is the query check's business: compare the path part.
    const path = rec.path.split('?')[0]!
    t.ok(path === s.expectedPath || s.expectedPath.endsWith(path), `${what}: the request line has the path ${s.expectedPath}`, {
      found: path,
      ...at,
    })
    t.equal(rec.status, s.status, `${what}: the line has the status the suite received`, at)
    t.equal(rec.requestId.method, tagFor(s.method), `${what}: the request id is ${tagFor(s.method)}-<counter>`, at)
  }
})

check('log: the requests this suite sent are attributed: a requester when authenticated, none otherwise', [], async (t) => {
  const tr = await ownTraffic(t)
  const version = await masVersion()
  const has = masHas(version, 'log-requester')
  if (has === false) skip(`the auth service is ${version}: requester= is logged from v1.20.0 on`)
  let checked = 0
  for (const s of tr.sent) {
    const found = linesOf(tr, s)
    if (found.length === 0) continue
    const m = found[0]!
    if (m.parsed.kind !== 'response') continue
    const rec = m.parsed.value.rec
    const at = { line: m.no, text: redactText(m.text) }
    if (rec.format !== 'v1.20' && has !== true) continue // an older service without fields (version unknown)
    checked++
    const what = `${shownRequest(s)} → ${rec.status}`
    if (s.expect === 'none') {
      t.equal(requesterText(rec), '(none)', `${what}: no requester (the request is unauthenticated)`, at)
    } else if (s.expect === 'authenticated') {
      // The admin API records the requester once the token is known, before the scope check.
      t.ok(
        rec.requester !== undefined && (rec.requester.kind === 'user' || rec.requester.kind === 'oauth2-client'),
        `${what}: a requester, user:<id>[(<name>)] or oauth2-client:<id>`,
        { found: requesterText(rec), ...at },
      )
    } else checked--
  }
  if (checked === 0) skip("none of this suite's requests was logged with the v1.20 fields")
})

// ---------------------------------------------------------------------------------------------------
// Every line of the log

check('log: the log holds http.server.response lines', [], async (t) => {
  const a = await readLog(t)
  t.ok(a.responses > 0, `http.server.response lines: ${a.responses} of ${a.lines} lines`, { logFile: target.logFile })
  note(
    t,
    `${a.lines} lines: ${a.responses} responses (v1.20 ${a.formats['v1.20']}, pre-v1.20 ${a.formats['pre-v1.20']}), ${a.events} other events, ${a.blank} blank, ${a.parse.count} malformed`,
  )
})

check('log: every line parses (responses by the full grammar, other events by timestamp, level and name)', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.parse, 'every line is a well-formed log event (parser part and column given)')
})

check('log: the level matches the status range (INFO 1xx–3xx, WARN 4xx, ERROR 5xx)', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.level, 'the level of every response line matches its status')
})

check('log: the request line has no query string', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.query, 'no request line holds a query string')
  const tr = await traffic().catch(() => undefined)
  if (tr && typeof tr !== 'string' && !tr.sent.some((s) => s.path.includes('?') && s.status !== undefined))
    note(t, 'this suite sent no request with a query string')
})

check('log: the status code has its reason phrase', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.reason, 'every status code is followed by its reason phrase')
})

check('log: request ids are METHOD-counter with the method of the request line (_OTHER for others)', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.requestIdTag, 'the tag of every request id is the method of its request line, or _OTHER')
})

check('log: all lines of one request share its id, and each request has its own', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.sharedId, "event lines carry the id of their request's response line; no two responses share an id")
  if (a.inFlight > 0)
    note(
      t,
      `${a.inFlight} event line(s) of requests without a response line yet, within ${IN_FLIGHT_GRACE_MS / 1000} s of the log's end (in flight)`,
    )
  if (a.sharedId.items.some((o) => o.detail.includes('already answered'))) {
    note(t, 'a request id used twice can also mean the service restarted while this log was written: check the log of one run')
  }
})

check('log: requester is absent on unauthenticated requests', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.unauthenticated, 'no requester on a request rejected before authentication (missing, invalid or unknown token)')
  if (a.unauthenticatedSeen === 0) note(t, 'the log shows no rejection before authentication (its event line names the reason)')
})

check('log: requester has one of the four forms', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.requesterForm, 'every requester is user:<id>(<username>), user:<id>, oauth2-client:<id> or homeserver')
  if (a.requestersSeen === 0 && a.requesterForm.count === 0) note(t, 'no line of the log has a requester')
})

check('log: token requests are attributed to the OAuth 2.0 client (introspection: the client or the homeserver)', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.tokenRequester, "token and revocation requests name the OAuth 2.0 client; introspection never the token's subject")
  if (a.tokenRequestsSeen === 0) note(t, 'the log holds no token, revocation or introspection request')
})

check('log: client.address is a valid IP address when present', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.clientAddress, 'every client.address is an IPv4 or IPv6 address')
  // The suite's own requests came over TCP: from v1.20 on their address is known.
  const tr = await traffic().catch(() => undefined)
  if (!tr || typeof tr === 'string') return
  const version = await masVersion()
  const has = masHas(version, 'log-client-address')
  for (const s of tr.sent) {
    const m = linesOf(tr, s)[0]
    if (!m || m.parsed.kind !== 'response') continue
    const rec = m.parsed.value.rec
    if (has === false || (has === 'unknown' && rec.format !== 'v1.20')) continue
    t.ok(rec.clientAddress !== undefined && isIP(rec.clientAddress) !== 0, `${shownRequest(s)}: client.address is logged`, {
      line: m.no,
      text: redactText(m.text),
    })
  }
})

check('log: graphql.operation.* fields appear only on /graphql', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.graphql, 'no graphql.operation.* field outside /graphql')
  if (a.graphqlSeen === 0) note(t, 'the log holds no /graphql request')
})

check('log: the stats and fields match the service version', [], async (t) => {
  const a = await readLog(t)
  expectNone(t, a.fieldsOnOldFormat, 'lines with the pre-v1.20 stats carry no structured fields')
  const version = await masVersion()
  const has = masHas(version, 'log-stats-db')
  if (has === 'unknown') {
    note(t, `auth service version unknown (${version ?? 'not reported'}): the format of each line is taken as it comes`)
    return
  }
  const want = has ? 'v1.20' : 'pre-v1.20'
  // Only the suite's own lines are certainly from this version (an older part of the log may predate an upgrade).
  const tr = await traffic().catch(() => undefined)
  if (!tr || typeof tr === 'string' || tr.lines.length === 0) {
    note(t, `no line of this run to compare with version ${version}`)
    return
  }
  for (const m of tr.lines) {
    if (m.parsed.kind !== 'response') continue
    t.equal(m.parsed.value.rec.format, want, `line ${m.no}: the ${want} stats of ${version}`, { text: redactText(m.text) })
  }
})
