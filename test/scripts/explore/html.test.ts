// explore's HTML report on a finding made by hand with hostile bytes from the target: markup, control
// characters, a bidi override and invalid UTF-8 (decoded as U+FFFD) all shown escaped, never as markup.
import t from 'tap'
import { exploreHtml } from '../../../scripts/explore/html.ts'
import type { ExploreResult, Finding } from '../../../scripts/explore/engine.ts'

const hostile = '<script>alert(1)</script>\u0007\u001b[31m\u202e' + Buffer.from([0xff, 0xfe, 0x41]).toString('utf8')
const finding: Finding = {
  id: 'B-001',
  cls: 'target-defect',
  api: 'hs',
  operation: 'GET /_synapse/admin/v1/event_reports',
  kind: 'valid',
  note: `a note ${hostile}`,
  case: {
    api: 'hs',
    operation: 'GET /_synapse/admin/v1/event_reports',
    method: 'GET',
    template: '/_synapse/admin/v1/event_reports',
    params: {},
    query: [],
    auth: 'admin',
    kind: 'valid',
    note: '',
  },
  request: 'GET http://127.0.0.1:1/_synapse/admin/v1/event_reports [admin token]',
  curl: "curl -sS 'http://127.0.0.1:1/_synapse/admin/v1/event_reports'",
  answer: { status: 500, contentType: 'text/html', body: hostile },
  model: { status: 200, body: '{}' },
  violations: [{ rule: 'no-5xx', expected: 'no 5xx', source: 'spec/interface.md' }],
  occurrences: 2,
  shrinkRequests: 0,
}
const result: ExploreResult = {
  cases: 1,
  sent: 1,
  requests: { target: 3, model: 3 },
  findings: [finding],
  perOperation: { 'GET /_synapse/admin/v1/event_reports': { cases: 1, requests: 3, ms: 12 } },
  skipped: 0,
  skippedCases: [],
  durationMs: 20,
}

t.test('hostile bytes from the target are escaped', async (t) => {
  const html = exploreHtml(result, { seed: 1, target: 'http://127.0.0.1:1' }, `1. delete event_reports #0  ← ${hostile}`)
  t.notMatch(html, /<script>/, 'no script element')
  t.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'the markup as text')
  // eslint-disable-next-line no-control-regex
  t.notMatch(html, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202e]/, 'no raw control or bidi character')
  t.match(html, /\\x07/, 'BEL shown as an escape')
  t.match(html, /\\u202e/, 'the bidi override shown as an escape')
  t.match(html, /\uFFFD/, 'invalid UTF-8 as the replacement character')
  t.match(html, /<h3><code>GET \/_synapse\/admin\/v1\/event_reports<\/code><\/h3>/, 'grouped by operation')
  t.match(html, /<h4>no-5xx <span class="muted">\(1\)<\/span><\/h4>/, 'then by rule')
  t.match(html, /<td>3<\/td>/, 'the requests spent on the operation')
  t.match(html, /class="sequence"/, 'the sequence shown')
})
